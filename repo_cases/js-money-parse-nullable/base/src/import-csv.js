// @ts-check
import { parseAmount } from './money.js';

/**
 * Split one CSV line; supports double-quoted fields with "" escapes.
 * @param {string} line
 */
export function splitCsvLine(line) {
  /** @type {string[]} */
  const out = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

/**
 * Import a bank export: header `date,description,amount,currency[,fee]`.
 * Bad rows are reported with their line number and skipped; the rest are added.
 * @param {import('./ledger.js').Ledger} ledger
 * @param {string} text
 */
export function importCsv(ledger, text) {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const header = splitCsvLine(lines[0] ?? '').map((h) => h.trim().toLowerCase());
  const col = (/** @type {string} */ name) => header.indexOf(name);
  for (const name of ['date', 'description', 'amount', 'currency']) {
    if (col(name) === -1) throw new Error(`missing column ${name}`);
  }
  /** @type {{ line: number, message: string }[]} */
  const errors = [];
  let added = 0;
  lines.slice(1).forEach((raw, i) => {
    const cells = splitCsvLine(raw);
    const line = i + 2;
    if (cells.length !== header.length) {
      errors.push({ line, message: `expected ${header.length} fields, got ${cells.length}` });
      return;
    }
    try {
      const code = cells[col('currency')].trim();
      const amount = parseAmount(cells[col('amount')], code);
      const feeCell = col('fee') === -1 ? '' : cells[col('fee')].trim();
      const fee = feeCell ? parseAmount(feeCell, code) : 0;
      ledger.add({
        date: cells[col('date')].trim(),
        description: cells[col('description')].trim(),
        minor: amount - fee,
        currency: code.toUpperCase(),
        tags: ['imported'],
      });
      added++;
    } catch (err) {
      errors.push({ line, message: err instanceof Error ? err.message : String(err) });
    }
  });
  return { added, errors };
}
