// @ts-check

const WARN_AT = 0.8;

/**
 * Per-tenant storage accounting. Emits a warning once usage crosses 80% of the plan limit
 * and an exceeded event every time a reservation is refused.
 */
export class QuotaTracker {
  /**
   * @param {import('./bus.js').Bus} bus
   * @param {(tenant: string) => { plan: string, limitBytes: number }} planOf
   */
  constructor(bus, planOf) {
    this.bus = bus;
    this.planOf = planOf;
    /** @type {Map<string, number>} */
    this.used = new Map();
    /** @type {Set<string>} */
    this.warned = new Set();
  }

  /** @param {string} tenant */
  usage(tenant) {
    return this.used.get(tenant) ?? 0;
  }

  /**
   * @param {string} tenant
   * @param {number} bytes
   * @returns {boolean} whether the bytes were reserved
   */
  reserve(tenant, bytes) {
    const { plan, limitBytes } = this.planOf(tenant);
    const next = this.usage(tenant) + bytes;
    if (next > limitBytes) {
      this.bus.emit('quotaExceeded', { tenant, plan, limitBytes, usedBytes: this.usage(tenant), requestedBytes: bytes });
      return false;
    }
    this.used.set(tenant, next);
    if (next >= limitBytes * WARN_AT && !this.warned.has(tenant)) {
      this.warned.add(tenant);
      this.bus.emit('quotaWarning', { tenant, plan, limitBytes, usedBytes: next });
    }
    return true;
  }

  /** @param {string} tenant @param {number} bytes */
  release(tenant, bytes) {
    const next = Math.max(0, this.usage(tenant) - bytes);
    this.used.set(tenant, next);
    if (next < this.planOf(tenant).limitBytes * WARN_AT) this.warned.delete(tenant);
  }
}
