// @ts-check

/** @typedef {(payload: any) => void} Listener */

/**
 * @typedef {object} Bus
 * @property {(event: string, listener: Listener) => () => void} on
 * @property {(event: string, listener: Listener) => () => void} once
 * @property {(event: string, payload?: unknown) => number} emit
 * @property {(event?: string) => number} listenerCount
 * @property {(handler: (error: unknown, event: string) => void) => void} onError
 */

/** @returns {Bus} */
export function createBus() {
  /** @type {Map<string, Set<Listener>>} */
  const listeners = new Map();
  /** @type {(error: unknown, event: string) => void} */
  let reportError = (error) => {
    throw error;
  };

  /** @param {string} event @param {Listener} listener */
  function on(event, listener) {
    let set = listeners.get(event);
    if (!set) {
      set = new Set();
      listeners.set(event, set);
    }
    set.add(listener);
    return () => {
      const current = listeners.get(event);
      if (!current) return;
      current.delete(listener);
      if (current.size === 0) listeners.delete(event);
    };
  }

  return {
    on,
    once(event, listener) {
      const off = on(event, (payload) => {
        off();
        listener(payload);
      });
      return off;
    },
    emit(event, payload) {
      const set = listeners.get(event);
      if (!set) return 0;
      // Copy first: listeners may subscribe or unsubscribe while we iterate.
      const snapshot = [...set];
      for (const listener of snapshot) {
        try {
          listener(payload);
        } catch (error) {
          reportError(error, event);
        }
      }
      return snapshot.length;
    },
    listenerCount(event) {
      if (event !== undefined) return listeners.get(event)?.size ?? 0;
      let n = 0;
      for (const set of listeners.values()) n += set.size;
      return n;
    },
    onError(handler) {
      reportError = handler;
    },
  };
}
