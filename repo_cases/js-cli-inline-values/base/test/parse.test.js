import test from 'node:test';
import assert from 'node:assert/strict';
import { parseArgs } from '../src/parse.js';
import { deploySpecs } from './specs.js';

test('parses long and short options with values', () => {
  const { options, positionals } = parseArgs(['api', '--env', 'prod', '-r', '3', '--dry-run'], deploySpecs);
  assert.deepEqual(options, { env: 'prod', replicas: 3, dryRun: true, tag: [] });
  assert.deepEqual(positionals, ['api']);
});

test('applies defaults', () => {
  assert.deepEqual(parseArgs([], deploySpecs).options, { env: 'staging', tag: [] });
});

test('collects repeated options', () => {
  assert.deepEqual(parseArgs(['-t', 'a', '--tag', 'b'], deploySpecs).options.tag, ['a', 'b']);
});

test('negative numbers are values, not options', () => {
  assert.equal(parseArgs(['--replicas', '-1'], deploySpecs).options.replicas, -1);
});

test('everything after -- is positional', () => {
  assert.deepEqual(parseArgs(['--', '--env', 'x'], deploySpecs).positionals, ['--env', 'x']);
});

test('reports usage errors', () => {
  assert.throws(() => parseArgs(['--colour'], deploySpecs), /unknown option --colour/);
  assert.throws(() => parseArgs(['--env'], deploySpecs), /--env needs a value/);
  assert.throws(() => parseArgs(['--env', '--verbose'], deploySpecs), /--env needs a value/);
  assert.throws(() => parseArgs(['-r', 'three'], deploySpecs), /--replicas expects a number/);
});

test('expands combined short flags', () => {
  assert.deepEqual(parseArgs(['-vq', 'api'], deploySpecs).options, { env: 'staging', tag: [], verbose: true, quiet: true });
});
