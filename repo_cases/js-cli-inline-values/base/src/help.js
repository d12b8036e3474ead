// @ts-check

/**
 * @param {string} usage  e.g. "deploy [options] <service>"
 * @param {import('./spec.js').OptionSpec[]} specs
 */
export function formatHelp(usage, specs) {
  const rows = specs.map((s) => {
    const flag = s.type === 'boolean' ? `--${s.name}` : `--${s.name} <${s.valueName ?? s.type}>`;
    const left = `${s.alias ? `-${s.alias}, ` : '    '}${flag}`;
    const notes = [s.description ?? ''];
    if (s.default !== undefined && s.type !== 'boolean') notes.push(`(default: ${s.default})`);
    if (s.multiple) notes.push('(repeatable)');
    return [left, notes.filter(Boolean).join(' ')];
  });
  const width = Math.max(0, ...rows.map(([l]) => l.length)) + 2;
  return [`Usage: ${usage}`, '', 'Options:', ...rows.map(([l, r]) => `  ${l.padEnd(width)}${r}`.trimEnd())].join('\n');
}
