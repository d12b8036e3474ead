import test from 'node:test';
import assert from 'node:assert/strict';
import { compile } from '../src/render.js';

test('renders variables with filters', () => {
  const t = compile('Dear {{ customer.first | default:"customer" | upper }}, your order {{ order.id }} ships today.');
  assert.equal(t({ customer: { first: 'ada' }, order: { id: 'A-17' } }), 'Dear ADA, your order A-17 ships today.');
  assert.equal(t({ order: { id: 'B-2' } }), 'Dear CUSTOMER, your order B-2 ships today.');
});

test('renders conditionals and loops', () => {
  const t = compile('{% for l in lines %}- {{ l.name }}{% if l.gift %} (gift){% end %}\n{% end %}{% if not lines %}Empty{% end %}');
  assert.equal(t({ lines: [{ name: 'Mug' }, { name: 'Tea', gift: true }] }), '- Mug\n- Tea (gift)\n');
  assert.equal(t({ lines: [] }), 'Empty');
});

test('formats numbers with the currency filter', () => {
  const t = compile('Total: {{ total | currency:"GBP" }}');
  assert.equal(t({ total: 12.5 }), 'Total: £12.50');
});

test('accepts custom filters', () => {
  const t = compile('{{ code | spaced }}', { filters: { spaced: (v) => String(v).split('').join(' ') } });
  assert.equal(t({ code: 'ABC' }), 'A B C');
});

test('unknown filters are reported at render time', () => {
  const t = compile('\n{{ x | shout }}');
  assert.throws(() => t({ x: 1 }), /line 2: unknown filter "shout"/);
});

test('does not read inherited properties', () => {
  assert.equal(compile('[{{ constructor }}]')({}), '[]');
});
