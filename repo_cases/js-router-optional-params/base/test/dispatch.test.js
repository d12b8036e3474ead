import test from 'node:test';
import assert from 'node:assert/strict';
import { Router } from '../src/router.js';
import { dispatch } from '../src/dispatch.js';

function app() {
  return new Router()
    .get('/search', (req) => ({ status: 200, body: req.query }))
    .get('/users/:id', (req) => ({ status: 200, body: { id: req.params.id } }))
    .post('/users', () => ({ status: 201 }));
}

test('passes params and query to the handler', async () => {
  const res = await dispatch(app(), { method: 'GET', url: '/search?q=red+shoes&tag=a&tag=b' });
  assert.equal(res.status, 200);
  assert.deepEqual({ ...(/** @type {object} */ (res.body)) }, { q: 'red shoes', tag: ['a', 'b'] });
  const user = await dispatch(app(), { method: 'GET', url: '/users/19' });
  assert.deepEqual(user.body, { id: '19' });
});

test('collapses duplicate slashes', async () => {
  const res = await dispatch(app(), { method: 'GET', url: '//users//5' });
  assert.deepEqual(res.body, { id: '5' });
});

test('returns 405 with an Allow header', async () => {
  const res = await dispatch(app(), { method: 'DELETE', url: '/users/5' });
  assert.equal(res.status, 405);
  assert.equal(res.headers?.allow, 'GET, HEAD');
});

test('answers OPTIONS from the route table', async () => {
  const res = await dispatch(app(), { method: 'OPTIONS', url: '/users' });
  assert.equal(res.status, 204);
  assert.equal(res.headers?.allow, 'POST, OPTIONS');
});

test('returns 404 for unknown paths', async () => {
  const res = await dispatch(app(), { method: 'GET', url: '/nope' });
  assert.equal(res.status, 404);
});

test('HEAD responses have no body', async () => {
  const res = await dispatch(app(), { method: 'HEAD', url: '/users/1' });
  assert.equal(res.status, 200);
  assert.equal(res.body, undefined);
});
