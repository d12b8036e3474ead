import test from 'node:test';
import assert from 'node:assert/strict';
import { Router } from '../src/router.js';

const ok = () => ({ status: 200 });

test('prefers static segments over parameters', () => {
  const r = new Router();
  const byId = () => ({ status: 200, body: 'by id' });
  const me = () => ({ status: 200, body: 'me' });
  r.get('/users/:id', byId).get('/users/me', me);
  assert.equal(r.match('GET', '/users/me')?.route.handler, me);
  assert.equal(r.match('GET', '/users/7')?.route.handler, byId);
});

test('first registered route wins among equal scores', () => {
  const r = new Router();
  const first = () => ({ status: 200, body: 1 });
  const second = () => ({ status: 200, body: 2 });
  r.get('/a/:x', first).get('/a/:y', second);
  assert.equal(r.match('GET', '/a/1')?.route.handler, first);
});

test('HEAD falls back to GET routes', () => {
  const r = new Router().get('/ping', ok);
  assert.ok(r.match('HEAD', '/ping'));
  assert.equal(r.match('POST', '/ping'), null);
});

test('reports allowed methods for a known path', () => {
  const r = new Router().get('/items/:id', ok).add('DELETE', '/items/:id', ok).post('/items', ok);
  assert.deepEqual(r.allowedMethods('/items/3'), ['GET', 'HEAD', 'DELETE']);
  assert.deepEqual(r.allowedMethods('/nothing'), []);
});

test('rejects unknown methods', () => {
  assert.throws(() => new Router().add('BREW', '/pot', ok), /unsupported method/);
});
