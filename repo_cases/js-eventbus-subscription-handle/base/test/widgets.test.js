import test from 'node:test';
import assert from 'node:assert/strict';
import { createBus } from '../src/bus.js';
import { Ticker } from '../src/widgets/ticker.js';
import { AlertPanel } from '../src/widgets/alerts.js';

test('ticker renders the latest quote per symbol', () => {
  const bus = createBus();
  const ticker = new Ticker(bus, ['ACME', 'INIT']);
  ticker.mount();
  ticker.mount();
  bus.emit('quote', { symbol: 'ACME', price: 101, previousClose: 100 });
  bus.emit('quote', { symbol: 'ACME', price: 99, previousClose: 100 });
  bus.emit('quote', { symbol: 'OTHER', price: 5, previousClose: 5 });
  assert.equal(ticker.render(), 'ACME 99.00 ▼1.0%  INIT --');
  assert.equal(bus.listenerCount('quote'), 1);
});

test('alert panel keeps the most severe alerts first', () => {
  const bus = createBus();
  const panel = new AlertPanel(bus, { max: 2 });
  panel.mount();
  bus.emit('alert', { id: 'a', level: 'info', text: 'sync done' });
  bus.emit('alert', { id: 'b', level: 'critical', text: 'feed down' });
  bus.emit('alert', { id: 'c', level: 'warning', text: 'slow feed' });
  assert.deepEqual(panel.alerts.map((a) => a.id), ['b', 'c']);
});

test('dismissing an alert is announced', () => {
  const bus = createBus();
  const panel = new AlertPanel(bus);
  panel.mount();
  /** @type {unknown[]} */
  const dismissed = [];
  bus.on('alert:dismissed', (e) => dismissed.push(e));
  bus.emit('alert', { id: 'x', level: 'info', text: 'hi' });
  panel.dismiss('x');
  panel.dismiss('x');
  assert.deepEqual(dismissed, [{ id: 'x' }]);
});

test('an unmounted alert panel stops listening', () => {
  const bus = createBus();
  const panel = new AlertPanel(bus);
  panel.mount();
  panel.unmount();
  bus.emit('alert', { id: 'late', level: 'info', text: 'ignored' });
  assert.deepEqual(panel.alerts, []);
  assert.equal(bus.listenerCount(), 0);
});
