import test from 'node:test';
import assert from 'node:assert/strict';
import { tokenize } from '../src/lexer.js';
import { parse } from '../src/parser.js';

/** @param {string} s */
const ast = (s) => parse(tokenize(s));

test('nests if/else and for blocks', () => {
  const nodes = ast('{% for o in orders %}{% if o.paid %}P{% else %}U{% end %}{% end %}');
  assert.equal(nodes.length, 1);
  const loop = nodes[0];
  assert.ok(loop.kind === 'for');
  assert.equal(loop.item, 'o');
  const cond = loop.body[0];
  assert.ok(cond.kind === 'if');
  assert.deepEqual(cond.then, [{ kind: 'text', value: 'P' }]);
  assert.deepEqual(cond.otherwise, [{ kind: 'text', value: 'U' }]);
});

test('reports block structure errors with line numbers', () => {
  assert.throws(() => ast('{% if a %}\nx'), /line 1: unclosed \{% if %\}/);
  assert.throws(() => ast('x\n{% end %}'), /line 2: \{% end %\} without an open block/);
  assert.throws(() => ast('{% else %}'), /outside \{% if %\}/);
  assert.throws(() => ast('{% for x of xs %}{% end %}'), /use \{% for item in list %\}/);
  assert.throws(() => ast('{% include header %}'), /unknown tag/);
});
