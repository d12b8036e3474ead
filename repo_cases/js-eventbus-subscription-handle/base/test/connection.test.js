import test from 'node:test';
import assert from 'node:assert/strict';
import { createBus } from '../src/bus.js';
import { connectQuotes } from '../src/connection.js';

function fakeSocket() {
  /** @type {(raw: string) => void} */
  let cb = () => {};
  return {
    /** @param {(raw: string) => void} fn */
    onMessage(fn) {
      cb = fn;
    },
    /** @param {string} raw */
    deliver(raw) {
      cb(raw);
    },
  };
}

test('forwards valid quotes and announces readiness once', () => {
  const bus = createBus();
  const socket = fakeSocket();
  let ready = 0;
  /** @type {unknown[]} */
  const quotes = [];
  bus.on('feed:ready', () => ready++);
  bus.on('quote', (q) => quotes.push(q));
  const conn = connectQuotes(bus, socket);
  socket.deliver('{"symbol":"ACME","price":1,"previousClose":1}');
  socket.deliver('{"symbol":"ACME","price":2,"previousClose":1}');
  socket.deliver('{"hello":"world"}');
  assert.equal(ready, 1);
  assert.equal(quotes.length, 2);
  assert.equal(conn.received(), 2);
});

test('raises a warning for unreadable messages', () => {
  const bus = createBus();
  const socket = fakeSocket();
  /** @type {unknown[]} */
  const alerts = [];
  bus.on('alert', (a) => alerts.push(a));
  connectQuotes(bus, socket);
  socket.deliver('not json');
  assert.deepEqual(alerts, [{ id: 'feed-parse', level: 'warning', text: 'Unreadable market data message' }]);
});
