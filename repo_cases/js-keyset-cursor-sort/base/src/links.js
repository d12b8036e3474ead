// @ts-check

/**
 * RFC 8288 Link header for the next page, keeping every other query parameter.
 * @param {string} baseUrl  e.g. https://api.example.com/v1/products
 * @param {Record<string, string | undefined>} params
 * @param {string | null} next
 */
export function linkHeader(baseUrl, params, next) {
  if (!next) return null;
  const qs = Object.entries({ ...params, after: next })
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(/** @type {string} */ (v))}`)
    .join('&');
  return `<${baseUrl}?${qs}>; rel="next"`;
}
