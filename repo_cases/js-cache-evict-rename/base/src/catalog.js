// @ts-check

/**
 * @typedef {object} Product
 * @property {number} id
 * @property {string} name
 * @property {string} category
 * @property {number} price  minor units
 */

/**
 * Product lookups backed by the database, cached by id and tagged by category.
 */
export class CatalogService {
  /**
   * @param {{ find(id: number): Promise<Product | null>, savePrice(id: number, price: number): Promise<Product> }} db
   * @param {import('./cache.js').TagCache<Product>} cache
   */
  constructor(db, cache) {
    this.db = db;
    this.cache = cache;
  }

  /** @param {number} id */
  async product(id) {
    const cached = this.cache.get(`product:${id}`);
    if (cached) return cached;
    const found = await this.db.find(id);
    if (found) this.cache.set(`product:${id}`, found, { ttlMs: 300_000, tags: [`category:${found.category}`] });
    return found;
  }

  /** @param {number} id @param {number} price */
  async updatePrice(id, price) {
    if (!Number.isSafeInteger(price) || price < 0) throw new RangeError('price must be a non-negative integer');
    const saved = await this.db.savePrice(id, price);
    this.cache.invalidate(`product:${id}`);
    return saved;
  }

  /**
   * Category pages embed product prices; a sale changes a whole category at once.
   * @param {string} category
   */
  categoryRepriced(category) {
    return this.cache.invalidateTag(`category:${category}`);
  }
}
