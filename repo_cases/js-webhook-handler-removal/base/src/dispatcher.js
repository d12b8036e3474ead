// @ts-check

/**
 * @typedef {object} RoutesFile
 * @property {string} source
 * @property {{ event: string, handlers: string[] }[]} routes
 */

/**
 * Build the event -> handlers table. Every handler name must exist in the registry, so a bad
 * routes file stops the service at start-up rather than dropping events later.
 * @param {RoutesFile} config
 * @param {Record<string, import('./deps.js').Handler>} registry
 * @param {import('./deps.js').Deps} deps
 * @param {{ seen?: Set<string> }} [options]  ids of events already processed (idempotency)
 */
export function createDispatcher(config, registry, deps, options = {}) {
  /** @type {Map<string, { name: string, fn: import('./deps.js').Handler }[]>} */
  const table = new Map();
  for (const route of config.routes) {
    if (table.has(route.event)) throw new Error(`duplicate route for ${route.event}`);
    table.set(
      route.event,
      route.handlers.map((name) => {
        const fn = Object.hasOwn(registry, name) ? registry[name] : undefined;
        if (!fn) throw new Error(`route ${route.event} names unknown handler ${name}`);
        return { name, fn };
      }),
    );
  }
  const seen = options.seen ?? new Set();

  /**
   * @param {import('./deps.js').WebhookEvent} event
   * @returns {Promise<{ status: 'ignored' | 'duplicate' | 'done', failed: string[] }>}
   */
  return async function dispatch(event) {
    const handlers = table.get(event.type);
    if (!handlers) return { status: 'ignored', failed: [] };
    if (seen.has(event.id)) return { status: 'duplicate', failed: [] };
    /** @type {string[]} */
    const failed = [];
    for (const { name, fn } of handlers) {
      try {
        await fn(event, deps);
      } catch (err) {
        deps.log.warn(`${name} failed for ${event.id}: ${err instanceof Error ? err.message : err}`);
        failed.push(name);
      }
    }
    if (failed.length > 0) throw Object.assign(new Error(`handlers failed: ${failed.join(', ')}`), { failed });
    seen.add(event.id);
    return { status: 'done', failed };
  };
}
