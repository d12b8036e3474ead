import test from 'node:test';
import assert from 'node:assert/strict';
import { TagCache } from '../src/cache.js';
import { cachedHandler, pathTags } from '../src/http-cache.js';

function setup() {
  let calls = 0;
  /** @type {TagCache<import('../src/http-cache.js').Res>} */
  const cache = new TagCache();
  const handle = cachedHandler(cache, async (req) => {
    /** @type {Record<string, string>} */
    const headers = {};
    calls++;
    if (req.path === '/me') return { status: 200, headers: { 'cache-control': 'private' }, body: 'me' };
    return { status: req.method === 'GET' ? 200 : 204, headers, body: `${req.path} #${calls}` };
  });
  return { handle, calls: () => calls };
}

test('serves repeated GETs from the cache', async () => {
  const { handle, calls } = setup();
  const first = await handle({ method: 'GET', path: '/products/7' });
  const second = await handle({ method: 'GET', path: '/products/7' });
  assert.equal(first.headers['x-cache'], 'miss');
  assert.equal(second.headers['x-cache'], 'hit');
  assert.equal(second.body, first.body);
  assert.equal(calls(), 1);
});

test('a write drops the resource and its collection', async () => {
  const { handle, calls } = setup();
  await handle({ method: 'GET', path: '/products' });
  await handle({ method: 'GET', path: '/products/7' });
  await handle({ method: 'GET', path: '/orders' });
  await handle({ method: 'PUT', path: '/products/7' });
  assert.equal((await handle({ method: 'GET', path: '/products' })).headers['x-cache'], 'miss');
  assert.equal((await handle({ method: 'GET', path: '/products/7' })).headers['x-cache'], 'miss');
  assert.equal((await handle({ method: 'GET', path: '/orders' })).headers['x-cache'], 'hit');
  assert.equal(calls(), 6);
});

test('never caches private responses', async () => {
  const { handle, calls } = setup();
  await handle({ method: 'GET', path: '/me' });
  await handle({ method: 'GET', path: '/me' });
  assert.equal(calls(), 2);
});

test('tags every path prefix', () => {
  assert.deepEqual(pathTags('/a/b/c'), ['path:/a', 'path:/a/b', 'path:/a/b/c']);
});
