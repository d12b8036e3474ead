// @ts-check

/**
 * @typedef {object} Upload
 * @property {string} tenant
 * @property {string} name
 * @property {number} size
 * @property {string} contentType
 * @property {string} sha256       as computed by the client
 * @property {string} receivedSha  as computed by the edge while streaming
 */

const BLOCKED_TYPES = new Set(['application/x-msdownload', 'application/x-sh']);
const MAX_OBJECT = 5 * 1024 ** 3;

/**
 * @param {object} deps
 * @param {import('./bus.js').Bus} deps.bus
 * @param {import('./quota.js').QuotaTracker} deps.quota
 * @param {(u: Upload) => boolean} deps.scan  malware scan verdict
 */
export function createUploadHandler({ bus, quota, scan }) {
  /** @param {Upload} u @param {string} reason */
  const reject = (u, reason) => {
    bus.emit('uploadRejected', { tenant: u.tenant, name: u.name, reason });
    return { ok: false, reason };
  };

  /** @param {Upload} u */
  return function handleUpload(u) {
    if (u.size <= 0 || u.size > MAX_OBJECT) return reject(u, 'bad_size');
    if (BLOCKED_TYPES.has(u.contentType)) return reject(u, 'blocked_type');
    if (u.sha256.toLowerCase() !== u.receivedSha.toLowerCase()) return reject(u, 'checksum_mismatch');
    if (!scan(u)) return reject(u, 'scan_failed');
    if (!quota.reserve(u.tenant, u.size)) return reject(u, 'quota');
    bus.emit('uploadStored', { tenant: u.tenant, name: u.name, size: u.size });
    return { ok: true, reason: '' };
  };
}
