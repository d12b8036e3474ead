// @ts-check

/**
 * A tiny observable store. Every update emits `change` on the bus with the keys that changed.
 * @template {Record<string, unknown>} S
 */
export class Store {
  /**
   * @param {import('./bus.js').Bus} bus
   * @param {S} initial
   */
  constructor(bus, initial) {
    this.bus = bus;
    /** @type {S} */
    this.state = { ...initial };
  }

  /** @param {Partial<S>} patch */
  update(patch) {
    /** @type {string[]} */
    const changed = [];
    for (const [key, value] of Object.entries(patch)) {
      if (!Object.is(this.state[key], value)) changed.push(key);
    }
    if (changed.length === 0) return;
    this.state = { ...this.state, ...patch };
    this.bus.emit('change', { changed, state: this.state });
  }

  /**
   * Call `fn` whenever one of `keys` changes. Returns a function that stops the subscription.
   * @param {(keyof S & string)[]} keys
   * @param {(state: S) => void} fn
   */
  select(keys, fn) {
    return this.bus.on('change', (/** @type {{ changed: string[], state: S }} */ e) => {
      if (e.changed.some((k) => keys.includes(/** @type {keyof S & string} */ (k)))) fn(e.state);
    });
  }
}
