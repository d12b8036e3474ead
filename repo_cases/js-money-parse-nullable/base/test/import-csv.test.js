import test from 'node:test';
import assert from 'node:assert/strict';
import { Ledger } from '../src/ledger.js';
import { importCsv, splitCsvLine } from '../src/import-csv.js';

test('splits quoted CSV fields', () => {
  assert.deepEqual(splitCsvLine('a,"b, c","say ""hi"""'), ['a', 'b, c', 'say "hi"']);
});

test('imports rows and subtracts fees', () => {
  const ledger = new Ledger();
  const csv = [
    'Date,Description,Amount,Currency,Fee',
    '2024-03-01,"Coffee, large",-4.50,EUR,',
    '2024-03-02,Salary,2500.00,EUR,1.50',
  ].join('\n');
  const result = importCsv(ledger, csv);
  assert.deepEqual(result, { added: 2, errors: [] });
  assert.deepEqual(ledger.balances(), { EUR: -450 + 249850 });
  assert.deepEqual(ledger.tagged('imported').length, 2);
});

test('reports rows with the wrong number of fields', () => {
  const ledger = new Ledger();
  const result = importCsv(ledger, 'date,description,amount,currency\n2024-01-01,Rent,-900\n2024-01-02,Tea,-2,GBP');
  assert.equal(result.added, 1);
  assert.deepEqual(result.errors, [{ line: 2, message: 'expected 4 fields, got 3' }]);
});

test('requires the core columns', () => {
  assert.throws(() => importCsv(new Ledger(), 'date,amount\n'), /missing column description/);
});
