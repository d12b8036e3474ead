// @ts-check
import { TemplateError, unreachable } from './errors.js';

/**
 * @typedef {{ kind: 'text', value: string }
 *   | { kind: 'var', path: string[], filters: import('./lexer.js').FilterCall[], line: number }
 *   | { kind: 'if', path: string[], negate: boolean, then: Node[], otherwise: Node[], line: number }
 *   | { kind: 'for', item: string, path: string[], body: Node[], line: number }} Node
 */

/**
 * @param {import('./lexer.js').Token[]} tokens
 * @returns {Node[]}
 */
export function parse(tokens) {
  /** @type {Node[]} */
  const root = [];
  /** @type {{ node: Node & { kind: 'if' | 'for' }, into: Node[] }[]} */
  const stack = [];
  const current = () => (stack.length ? stack[stack.length - 1].into : root);

  for (const token of tokens) {
    switch (token.type) {
      case 'text':
        current().push({ kind: 'text', value: token.value });
        break;
      case 'var':
        current().push({ kind: 'var', path: token.path, filters: token.filters, line: token.line });
        break;
      case 'tag':
        handleTag(token, stack, current);
        break;
      default:
        unreachable(token, 0);
    }
  }
  if (stack.length) throw new TemplateError(`unclosed {% ${stack[stack.length - 1].node.kind} %}`, stack[stack.length - 1].node.line);
  return root;
}

/**
 * @param {{ name: string, args: string[], line: number }} tag
 * @param {{ node: Node & { kind: 'if' | 'for' }, into: Node[] }[]} stack
 * @param {() => Node[]} current
 */
function handleTag(tag, stack, current) {
  const { name, args, line } = tag;
  if (name === 'if') {
    const negate = args[0] === 'not';
    const expr = negate ? args[1] : args[0];
    if (!expr) throw new TemplateError('{% if %} needs a variable', line);
    /** @type {Node & { kind: 'if' }} */
    const node = { kind: 'if', path: expr.split('.'), negate, then: [], otherwise: [], line };
    current().push(node);
    stack.push({ node, into: node.then });
  } else if (name === 'else') {
    const top = stack[stack.length - 1];
    if (!top || top.node.kind !== 'if' || top.into !== top.node.then) throw new TemplateError('{% else %} outside {% if %}', line);
    top.into = top.node.otherwise;
  } else if (name === 'for') {
    if (args.length !== 3 || args[1] !== 'in') throw new TemplateError('use {% for item in list %}', line);
    /** @type {Node & { kind: 'for' }} */
    const node = { kind: 'for', item: args[0], path: args[2].split('.'), body: [], line };
    current().push(node);
    stack.push({ node, into: node.body });
  } else if (name === 'end') {
    if (!stack.pop()) throw new TemplateError('{% end %} without an open block', line);
  } else {
    throw new TemplateError(`unknown tag {% ${name} %}`, line);
  }
}
