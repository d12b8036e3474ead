// @ts-check
import { buildClients, readUpstreamsFile } from './upstreams.js';

/**
 * Clients for every upstream named in config/upstreams.json.
 * @param {import('./client.js').Transport} transport
 */
export async function loadClients(transport) {
  const config = await readUpstreamsFile(new URL('../config/upstreams.json', import.meta.url));
  return buildClients(config, transport);
}
