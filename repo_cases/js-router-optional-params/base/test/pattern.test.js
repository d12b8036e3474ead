import test from 'node:test';
import assert from 'node:assert/strict';
import { compilePattern, matchPattern } from '../src/pattern.js';

test('matches static routes exactly', () => {
  const p = compilePattern('/health/live');
  assert.deepEqual(matchPattern(p, '/health/live'), {});
  assert.equal(matchPattern(p, '/health'), null);
  assert.equal(matchPattern(p, '/health/live/extra'), null);
});

test('captures named parameters', () => {
  const p = compilePattern('/orgs/:org/repos/:repo');
  assert.deepEqual(matchPattern(p, '/orgs/acme/repos/widgets'), { org: 'acme', repo: 'widgets' });
});

test('decodes percent-encoded parameter values', () => {
  const p = compilePattern('/files/:name');
  assert.deepEqual(matchPattern(p, '/files/annual%20report%202024.pdf'), { name: 'annual report 2024.pdf' });
  assert.deepEqual(matchPattern(p, '/files/caf%C3%A9'), { name: 'café' });
});

test('ignores a trailing slash', () => {
  const p = compilePattern('/users/:id');
  assert.deepEqual(matchPattern(p, '/users/42/'), { id: '42' });
});

test('wildcard captures the remaining path', () => {
  const p = compilePattern('/static/*file');
  assert.deepEqual(matchPattern(p, '/static/css/site.css'), { file: 'css/site.css' });
  assert.deepEqual(matchPattern(p, '/static'), { file: '' });
});

test('rejects malformed patterns', () => {
  assert.throws(() => compilePattern('users/:id'), /must start with/);
  assert.throws(() => compilePattern('/a/*rest/b'), /last segment/);
  assert.throws(() => compilePattern('/a/:1st'), /bad parameter name/);
});

test('static segments score higher than parameters', () => {
  assert.ok(compilePattern('/users/me').score > compilePattern('/users/:id').score);
  assert.ok(compilePattern('/users/:id').score > compilePattern('/users/*rest').score);
});
