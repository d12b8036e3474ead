// @ts-check

/**
 * @typedef {object} AlertRule
 * @property {string} on
 * @property {Record<string, string>} [when]  payload fields that must match
 * @property {'page' | 'ticket'} severity
 * @property {string} channel
 */

/**
 * Subscribe the operational alert rules (config/alerts.json) to the bus.
 * @param {import('./bus.js').Bus} bus
 * @param {{ rules: AlertRule[] }} config
 * @param {(alert: { severity: string, channel: string, event: string, payload: Record<string, any> }) => void} send
 */
export function attachAlerts(bus, config, send) {
  for (const rule of config.rules) {
    bus.on(rule.on, (payload) => {
      const matches = Object.entries(rule.when ?? {}).every(([k, v]) => String(payload[k]) === v);
      if (matches) send({ severity: rule.severity, channel: rule.channel, event: rule.on, payload });
    });
  }
}
