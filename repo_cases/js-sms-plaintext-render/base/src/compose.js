// @ts-check
import { lookup } from './catalog.js';
import { render } from './template.js';
import { measure } from './gsm.js';

const MAX_SEGMENTS = 3;

/**
 * Build the body of a transactional SMS or push notification.
 * @param {string} key
 * @param {string} locale
 * @param {Record<string, string | number>} vars
 */
export function composeMessage(key, locale, vars) {
  const text = render(lookup(key, locale), vars);
  const size = measure(text);
  if (size.segments > MAX_SEGMENTS) throw new Error(`${key} is ${size.segments} segments long (max ${MAX_SEGMENTS})`);
  return { text, ...size };
}
