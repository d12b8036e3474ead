// @ts-check
import { readFile } from 'node:fs/promises';
import { Bus } from './bus.js';
import { QuotaTracker } from './quota.js';
import { createUploadHandler } from './uploads.js';
import { attachMetrics } from './metrics.js';
import { attachAlerts } from './alerts.js';
import { attachNotifications } from './notifier.js';

const CONFIG_DIR = new URL('../config/', import.meta.url);

/** @param {string} name */
async function readJson(name) {
  return JSON.parse(await readFile(new URL(name, CONFIG_DIR), 'utf8'));
}

/**
 * Wire the upload path, metrics, ops alerts and customer notifications onto one bus.
 * @param {object} deps
 * @param {(tenant: string) => { plan: string, limitBytes: number }} deps.planOf
 * @param {(u: import('./uploads.js').Upload) => boolean} deps.scan
 * @param {Parameters<typeof attachAlerts>[2]} deps.page
 * @param {Parameters<typeof attachNotifications>[2]} deps.mail
 */
export async function createApp(deps) {
  const bus = new Bus();
  const quota = new QuotaTracker(bus, deps.planOf);
  const metrics = attachMetrics(bus);
  attachAlerts(bus, await readJson('alerts.json'), deps.page);
  attachNotifications(bus, await readJson('notifications.json'), deps.mail);
  return { bus, quota, metrics, handleUpload: createUploadHandler({ bus, quota, scan: deps.scan }) };
}
