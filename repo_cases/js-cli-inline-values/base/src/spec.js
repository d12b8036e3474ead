// @ts-check

/**
 * @typedef {object} OptionSpec
 * @property {string} name                 long name, used as --name
 * @property {string} [alias]              one letter, used as -a
 * @property {'boolean' | 'string' | 'number'} type
 * @property {boolean | string | number} [default]
 * @property {boolean} [multiple]          collect repeated values into an array
 * @property {string} [description]
 * @property {string} [valueName]          shown in help, e.g. FILE
 */

/**
 * Validate a spec list and index it by long name and alias.
 * @param {OptionSpec[]} specs
 */
export function indexSpecs(specs) {
  /** @type {Map<string, OptionSpec>} */
  const byName = new Map();
  /** @type {Map<string, OptionSpec>} */
  const byAlias = new Map();
  for (const s of specs) {
    if (!/^[a-z][a-z0-9-]*$/.test(s.name)) throw new Error(`invalid option name ${JSON.stringify(s.name)}`);
    if (byName.has(s.name)) throw new Error(`duplicate option --${s.name}`);
    byName.set(s.name, s);
    if (s.alias !== undefined) {
      if (!/^[A-Za-z]$/.test(s.alias)) throw new Error(`alias of --${s.name} must be one letter`);
      if (byAlias.has(s.alias)) throw new Error(`duplicate alias -${s.alias}`);
      byAlias.set(s.alias, s);
    }
    if (s.default !== undefined && typeof s.default !== s.type) throw new Error(`default of --${s.name} must be a ${s.type}`);
  }
  return { byName, byAlias };
}

/** @param {string} name  kebab-case */
export function camel(name) {
  return name.replace(/-([a-z0-9])/g, (_, c) => c.toUpperCase());
}
