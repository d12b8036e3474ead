// @ts-check

/**
 * @typedef {(req: { method: string, url: string, headers: Record<string, string>, body?: string }) =>
 *   Promise<{ status: number, body: string }>} Fetcher
 */

/**
 * Partner API client: adds the bearer token, refreshes once on a 401, parses JSON.
 * @param {{ baseUrl: string, session: import('./session.js').Session, fetcher: Fetcher }} options
 */
export function createApi({ baseUrl, session, fetcher }) {
  /**
   * @param {string} method
   * @param {string} path
   * @param {unknown} [payload]
   */
  async function call(method, path, payload) {
    const body = payload === undefined ? undefined : JSON.stringify(payload);
    /** @param {string} token */
    const send = (token) =>
      fetcher({ method, url: baseUrl + path, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });
    let res = await send(await session.accessToken());
    if (res.status === 401) res = await send(await session.forceRefresh());
    if (res.status >= 400) throw new Error(`${method} ${path}: HTTP ${res.status}`);
    return res.body ? JSON.parse(res.body) : null;
  }

  return {
    listOrders: () => call('GET', '/v2/orders'),
    /** @param {string} id */
    getOrder: (id) => call('GET', `/v2/orders/${encodeURIComponent(id)}`),
    /** @param {string} id @param {string} carrier @param {string} tracking */
    markShipped: (id, carrier, tracking) => call('POST', `/v2/orders/${encodeURIComponent(id)}/shipments`, { carrier, tracking }),
  };
}
