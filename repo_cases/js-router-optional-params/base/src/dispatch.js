// @ts-check
import { parseQuery } from './query.js';

/**
 * @param {import('./router.js').Router} router
 * @param {{ method: string, url: string }} incoming
 * @returns {Promise<import('./router.js').Response>}
 */
export async function dispatch(router, incoming) {
  const q = incoming.url.indexOf('?');
  const rawPath = q === -1 ? incoming.url : incoming.url.slice(0, q);
  const path = rawPath.replace(/\/{2,}/g, '/') || '/';
  const query = parseQuery(q === -1 ? '' : incoming.url.slice(q));
  const method = incoming.method.toUpperCase();

  const hit = router.match(method, path);
  if (hit) {
    const res = await hit.route.handler({ method, path, params: hit.params, query });
    return method === 'HEAD' ? { ...res, body: undefined } : res;
  }
  const allowed = router.allowedMethods(path);
  if (method === 'OPTIONS' && allowed.length > 0) {
    return { status: 204, headers: { allow: [...allowed, 'OPTIONS'].join(', ') } };
  }
  if (allowed.length > 0) {
    return { status: 405, headers: { allow: allowed.join(', ') }, body: { error: 'method not allowed' } };
  }
  return { status: 404, body: { error: 'not found' } };
}
