import test from 'node:test';
import assert from 'node:assert/strict';
import { render, placeholders } from '../src/template.js';

test('fills placeholders', () => {
  assert.equal(render('Hi {{ name }}, order {{order_no}}.', { name: 'Ana', order_no: 1042 }), 'Hi Ana, order 1042.');
});

test('lists placeholders once, in order', () => {
  assert.deepEqual(placeholders('{{a}} {{ b }} {{a}}'), ['a', 'b']);
});

test('refuses to render with missing values', () => {
  assert.throws(() => render('{{a}} {{b}}', { a: 1 }), /missing template values: b/);
  assert.throws(() => render('{{constructor}}', {}), /missing template values: constructor/);
});

test('escapes interpolated values', () => {
  assert.equal(render('From {{store}}', { store: 'Fish & <Chips>' }), 'From Fish &amp; &lt;Chips&gt;');
});
