// @ts-check

/**
 * @typedef {object} NotificationSpec
 * @property {string} template
 * @property {'owners' | 'billing'} audience
 * @property {number} cooldownHours  at most one e-mail per tenant and event in this period
 */

/**
 * Customer-facing e-mails, keyed by bus event name (config/notifications.json).
 * @param {import('./bus.js').Bus} bus
 * @param {Record<string, NotificationSpec>} config
 * @param {object} deps
 * @param {(tenant: string, audience: string) => string[]} deps.recipients
 * @param {(to: string[], template: string, data: Record<string, any>) => void} deps.email
 * @param {() => number} deps.now  epoch ms
 */
export function attachNotifications(bus, config, deps) {
  /** @type {Map<string, number>} */
  const lastSent = new Map();
  for (const [event, spec] of Object.entries(config)) {
    bus.on(event, (payload) => {
      const key = `${payload.tenant}:${event}`;
      const last = lastSent.get(key);
      if (last !== undefined && deps.now() - last < spec.cooldownHours * 3_600_000) return;
      const to = deps.recipients(payload.tenant, spec.audience);
      if (to.length === 0) return;
      lastSent.set(key, deps.now());
      deps.email(to, spec.template, payload);
    });
  }
}
