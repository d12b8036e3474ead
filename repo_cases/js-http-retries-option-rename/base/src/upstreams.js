// @ts-check
import { readFile } from 'node:fs/promises';
import { resolveOptions } from './options.js';
import { createClient } from './client.js';

/**
 * @typedef {object} UpstreamsFile
 * @property {Record<string, unknown>} [defaults]
 * @property {Record<string, Record<string, unknown>>} upstreams
 */

/**
 * One client per upstream, each with its settings layered over the file's defaults.
 * @param {UpstreamsFile} config
 * @param {import('./client.js').Transport} transport
 */
export function buildClients(config, transport) {
  /** @type {Map<string, ReturnType<typeof createClient>>} */
  const clients = new Map();
  for (const [name, settings] of Object.entries(config.upstreams)) {
    try {
      clients.set(name, createClient(resolveOptions(config.defaults ?? {}, settings), transport));
    } catch (err) {
      throw new Error(`upstream ${name}: ${err instanceof Error ? err.message : err}`);
    }
  }
  return clients;
}

/**
 * @param {string | URL} path
 * @returns {Promise<UpstreamsFile>}
 */
export async function readUpstreamsFile(path) {
  const raw = JSON.parse(await readFile(path, 'utf8'));
  if (typeof raw !== 'object' || raw === null || typeof raw.upstreams !== 'object') {
    throw new Error(`${path}: expected an object with "upstreams"`);
  }
  return raw;
}
