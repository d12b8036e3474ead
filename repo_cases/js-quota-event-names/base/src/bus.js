// @ts-check

/** @typedef {(payload: Record<string, any>) => void} Listener */

export class Bus {
  constructor() {
    /** @type {Map<string, Listener[]>} */
    this.listeners = new Map();
  }

  /** @param {string} event @param {Listener} fn */
  on(event, fn) {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), fn]);
  }

  /** @param {string} event @param {Record<string, any>} payload */
  emit(event, payload) {
    for (const fn of this.listeners.get(event) ?? []) fn(payload);
  }

  /** Names of events that have at least one listener. */
  events() {
    return [...this.listeners.keys()];
  }
}
