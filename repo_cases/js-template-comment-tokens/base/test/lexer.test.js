import test from 'node:test';
import assert from 'node:assert/strict';
import { tokenize } from '../src/lexer.js';

test('splits text, variables and tags', () => {
  assert.deepEqual(tokenize('Hi {{ user.name }}!{% if vip %}*{% end %}'), [
    { type: 'text', value: 'Hi ', line: 1 },
    { type: 'var', path: ['user', 'name'], filters: [], line: 1 },
    { type: 'text', value: '!', line: 1 },
    { type: 'tag', name: 'if', args: ['vip'], line: 1 },
    { type: 'text', value: '*', line: 1 },
    { type: 'tag', name: 'end', args: [], line: 1 },
  ]);
});

test('parses filter chains with quoted arguments', () => {
  const [tok] = tokenize('{{ name | default:"dear customer" | truncate:12 | join:"|" }}');
  assert.deepEqual(tok, {
    type: 'var',
    path: ['name'],
    filters: [
      { name: 'default', args: ['dear customer'] },
      { name: 'truncate', args: ['12'] },
      { name: 'join', args: ['|'] },
    ],
    line: 1,
  });
});

test('comments produce no tokens but keep line numbers right', () => {
  const tokens = tokenize('a{# two\nline note #}b\n{{ x }}');
  assert.deepEqual(tokens.map((t) => t.type), ['text', 'text', 'var']);
  assert.equal(tokens[2].line, 3);
});

test('reports unclosed delimiters with their line', () => {
  assert.throws(() => tokenize('ok\n\n{{ name'), /line 3: unclosed \{\{/);
});

test('rejects malformed variable names', () => {
  assert.throws(() => tokenize('{{ user..name }}'), /bad variable/);
});
