// @ts-check

/**
 * @typedef {object} Req
 * @property {string} method
 * @property {string} path
 * @property {string} [query]
 */

/**
 * @typedef {object} Res
 * @property {number} status
 * @property {Record<string, string>} headers
 * @property {string} body
 */

/**
 * Cache successful GET responses; any successful write under a collection drops what was
 * cached for it. `/products/7` is tagged `path:/products` and `path:/products/7`.
 * @param {import('./cache.js').TagCache<Res>} cache
 * @param {(req: Req) => Promise<Res>} handler
 */
export function cachedHandler(cache, handler) {
  /** @param {Req} req */
  return async function handle(req) {
    const key = `${req.path}?${req.query ?? ''}`;
    if (req.method === 'GET') {
      const hit = cache.get(key);
      if (hit) return { ...hit, headers: { ...hit.headers, 'x-cache': 'hit' } };
      const res = await handler(req);
      if (res.status === 200 && !/no-store|private/.test(res.headers['cache-control'] ?? '')) {
        cache.set(key, res, { tags: pathTags(req.path) });
      }
      return { ...res, headers: { ...res.headers, 'x-cache': 'miss' } };
    }
    const res = await handler(req);
    if (res.status < 400) {
      // A write changes the resource and its collection listing, so invalidate both.
      for (const tag of pathTags(req.path)) cache.invalidateTag(tag);
    }
    return res;
  };
}

/** @param {string} path */
export function pathTags(path) {
  const parts = path.split('/').filter(Boolean);
  return parts.map((_, i) => `path:/${parts.slice(0, i + 1).join('/')}`);
}
