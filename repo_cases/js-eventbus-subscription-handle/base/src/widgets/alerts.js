// @ts-check

/**
 * @typedef {object} Alert
 * @property {string} id
 * @property {'info' | 'warning' | 'critical'} level
 * @property {string} text
 */

const RANK = { info: 0, warning: 1, critical: 2 };

/** Keeps the newest alerts, most severe first; dismissing one is announced on the bus. */
export class AlertPanel {
  /**
   * @param {import('../bus.js').Bus} bus
   * @param {{ max?: number }} [options]
   */
  constructor(bus, options = {}) {
    this.bus = bus;
    this.max = options.max ?? 5;
    /** @type {Alert[]} */
    this.alerts = [];
    /** @type {Array<() => void>} */
    this.subscriptions = [];
  }

  mount() {
    this.subscriptions.push(
      this.bus.on('alert', (/** @type {Alert} */ a) => this.push(a)),
      this.bus.on('alert:clear', () => {
        this.alerts = [];
      }),
    );
  }

  unmount() {
    for (const off of this.subscriptions) off();
    this.subscriptions = [];
  }

  /** @param {Alert} alert */
  push(alert) {
    this.alerts = [alert, ...this.alerts.filter((a) => a.id !== alert.id)]
      .sort((a, b) => RANK[b.level] - RANK[a.level])
      .slice(0, this.max);
  }

  /** @param {string} id */
  dismiss(id) {
    const before = this.alerts.length;
    this.alerts = this.alerts.filter((a) => a.id !== id);
    if (this.alerts.length < before) this.bus.emit('alert:dismissed', { id });
  }
}
