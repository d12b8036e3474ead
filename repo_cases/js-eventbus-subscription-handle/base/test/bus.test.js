import test from 'node:test';
import assert from 'node:assert/strict';
import { createBus } from '../src/bus.js';

test('delivers payloads to every listener of an event', () => {
  const bus = createBus();
  /** @type {unknown[]} */
  const seen = [];
  bus.on('x', (p) => seen.push(['a', p]));
  bus.on('x', (p) => seen.push(['b', p]));
  bus.on('y', (p) => seen.push(['y', p]));
  assert.equal(bus.emit('x', 1), 2);
  assert.deepEqual(seen, [['a', 1], ['b', 1]]);
});

test('unsubscribing stops delivery and frees the event', () => {
  const bus = createBus();
  let n = 0;
  const off = bus.on('tick', () => n++);
  bus.emit('tick');
  off();
  off();
  bus.emit('tick');
  assert.equal(n, 1);
  assert.equal(bus.listenerCount(), 0);
});

test('once listeners fire a single time', () => {
  const bus = createBus();
  let n = 0;
  bus.once('ready', () => n++);
  bus.emit('ready');
  bus.emit('ready');
  assert.equal(n, 1);
  assert.equal(bus.listenerCount('ready'), 0);
});

test('a listener removed during emit still sees the current event', () => {
  const bus = createBus();
  /** @type {string[]} */
  const calls = [];
  const offB = bus.on('e', () => calls.push('b'));
  bus.on('e', () => {
    calls.push('a');
    offB();
  });
  bus.emit('e');
  bus.emit('e');
  assert.deepEqual(calls, ['b', 'a', 'a']);
});

test('listener errors go to the error handler and do not stop delivery', () => {
  const bus = createBus();
  /** @type {string[]} */
  const errors = [];
  bus.onError((err, event) => errors.push(`${event}: ${err instanceof Error ? err.message : err}`));
  let delivered = 0;
  bus.on('e', () => {
    throw new Error('boom');
  });
  bus.on('e', () => delivered++);
  bus.emit('e');
  assert.deepEqual(errors, ['e: boom']);
  assert.equal(delivered, 1);
});
