// @ts-check
import { UsageError } from './errors.js';
import { indexSpecs, camel } from './spec.js';

/** @typedef {string | number | boolean | Array<string | number>} OptionValue */

/**
 * @param {import('./spec.js').OptionSpec} spec
 * @param {string} raw
 * @returns {string | number}
 */
function convert(spec, raw) {
  if (spec.type === 'number') {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${spec.name} expects a number, got ${JSON.stringify(raw)}`);
    return n;
  }
  return raw;
}

/**
 * Parse command-line arguments (without the node and script paths).
 * @param {string[]} argv
 * @param {import('./spec.js').OptionSpec[]} specs
 * @returns {{ options: Record<string, OptionValue>, positionals: string[] }}
 */
export function parseArgs(argv, specs) {
  const { byName, byAlias } = indexSpecs(specs);
  /** @type {Record<string, OptionValue>} */
  const options = {};
  /** @type {string[]} */
  const positionals = [];

  /** @param {import('./spec.js').OptionSpec} spec @param {string | number | boolean} value */
  const set = (spec, value) => {
    const key = camel(spec.name);
    if (spec.multiple && typeof value !== 'boolean') {
      const prev = options[key];
      options[key] = Array.isArray(prev) ? [...prev, value] : [value];
    } else {
      options[key] = value;
    }
  };

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    /** @type {import('./spec.js').OptionSpec | undefined} */
    let spec;
    if (arg.startsWith('--')) spec = byName.get(arg.slice(2));
    else if (/^-[A-Za-z]$/.test(arg)) spec = byAlias.get(arg.slice(1));
    else if (arg.startsWith('-') && arg !== '-') throw new UsageError(`unknown option ${arg}`);
    else {
      positionals.push(arg);
      continue;
    }
    if (!spec) throw new UsageError(`unknown option ${arg}`);
    if (spec.type === 'boolean') {
      set(spec, true);
      continue;
    }
    const next = argv[i + 1];
    if (next === undefined || (next.startsWith('-') && next !== '-' && !/^-\d/.test(next))) {
      throw new UsageError(`${arg} needs a value`);
    }
    set(spec, convert(spec, next));
    i++;
  }

  for (const spec of specs) {
    const key = camel(spec.name);
    if (options[key] === undefined && spec.default !== undefined) options[key] = spec.default;
    if (options[key] === undefined && spec.multiple) options[key] = [];
  }
  return { options, positionals };
}
