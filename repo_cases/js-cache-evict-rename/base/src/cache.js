// @ts-check

/**
 * @template V
 * @typedef {object} Entry
 * @property {V} value
 * @property {number} expiresAt
 * @property {string[]} tags
 */

/** @typedef {'expired' | 'capacity' | 'explicit'} EvictReason */

/**
 * In-process LRU cache with per-entry TTL and tags. Map insertion order is the LRU order:
 * a hit re-inserts the key at the end, and capacity evictions take the first key.
 * @template V
 */
export class TagCache {
  /**
   * @param {object} [options]
   * @param {number} [options.maxEntries]
   * @param {number} [options.defaultTtlMs]
   * @param {() => number} [options.now]
   * @param {(key: string, reason: EvictReason) => void} [options.onEvict]
   */
  constructor(options = {}) {
    this.maxEntries = options.maxEntries ?? 1000;
    this.defaultTtlMs = options.defaultTtlMs ?? 60_000;
    this.now = options.now ?? Date.now;
    this.onEvict = options.onEvict ?? (() => {});
    /** @type {Map<string, Entry<V>>} */
    this.entries = new Map();
    /** @type {Map<string, Set<string>>} */
    this.byTag = new Map();
    this.counters = { hits: 0, misses: 0, evictions: 0 };
  }

  /** @param {string} key @returns {V | undefined} */
  get(key) {
    const entry = this.entries.get(key);
    if (!entry) {
      this.counters.misses++;
      return undefined;
    }
    if (entry.expiresAt <= this.now()) {
      this.remove(key, 'expired');
      this.counters.misses++;
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.counters.hits++;
    return entry.value;
  }

  /**
   * @param {string} key
   * @param {V} value
   * @param {{ ttlMs?: number, tags?: string[] }} [options]
   */
  set(key, value, options = {}) {
    if (this.entries.has(key)) this.unlinkTags(key);
    this.entries.delete(key);
    const tags = [...new Set(options.tags ?? [])];
    this.entries.set(key, { value, expiresAt: this.now() + (options.ttlMs ?? this.defaultTtlMs), tags });
    for (const tag of tags) {
      let keys = this.byTag.get(tag);
      if (!keys) this.byTag.set(tag, (keys = new Set()));
      keys.add(key);
    }
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.remove(oldest, 'capacity');
    }
    return this;
  }

  /** @param {string} key */
  has(key) {
    const entry = this.entries.get(key);
    return entry !== undefined && entry.expiresAt > this.now();
  }

  /**
   * Drop one key now.
   * @param {string} key
   * @returns {boolean} whether the key was cached
   */
  invalidate(key) {
    if (!this.entries.has(key)) return false;
    this.remove(key, 'explicit');
    return true;
  }

  /**
   * Drop every key carrying `tag`.
   * @param {string} tag
   * @returns {number} how many keys were dropped
   */
  invalidateTag(tag) {
    const keys = [...(this.byTag.get(tag) ?? [])];
    for (const key of keys) this.remove(key, 'explicit');
    return keys.length;
  }

  /** Remove expired entries; returns how many were removed. */
  prune() {
    const now = this.now();
    let n = 0;
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt <= now) {
        this.remove(key, 'expired');
        n++;
      }
    }
    return n;
  }

  stats() {
    return { size: this.entries.size, tags: this.byTag.size, ...this.counters };
  }

  /** @param {string} key @param {EvictReason} reason */
  remove(key, reason) {
    this.unlinkTags(key);
    this.entries.delete(key);
    this.counters.evictions++;
    this.onEvict(key, reason);
  }

  /** @param {string} key */
  unlinkTags(key) {
    for (const tag of this.entries.get(key)?.tags ?? []) {
      const keys = this.byTag.get(tag);
      keys?.delete(key);
      if (keys && keys.size === 0) this.byTag.delete(tag);
    }
  }
}
