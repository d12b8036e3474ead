import test from 'node:test';
import assert from 'node:assert/strict';
import { formatHelp } from '../src/help.js';
import { deploySpecs } from './specs.js';

test('formats aligned help', () => {
  assert.equal(
    formatHelp('deploy [options] <service>', deploySpecs),
    [
      'Usage: deploy [options] <service>',
      '',
      'Options:',
      '  -e, --env <NAME>         Target environment (default: staging)',
      '  -r, --replicas <number>  Number of replicas',
      '  -t, --tag <string>       Extra image tag (repeatable)',
      '  -v, --verbose            Log every step',
      '  -q, --quiet              Only log errors',
      '      --dry-run            Print the plan, change nothing',
    ].join('\n'),
  );
});
