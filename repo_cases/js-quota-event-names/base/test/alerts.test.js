import test from 'node:test';
import assert from 'node:assert/strict';
import { Bus } from '../src/bus.js';
import { attachAlerts } from '../src/alerts.js';
import { attachNotifications } from '../src/notifier.js';

test('alert rules fire only when their conditions match', () => {
  const bus = new Bus();
  /** @type {string[]} */
  const sent = [];
  attachAlerts(bus, { rules: [{ on: 'disk', when: { zone: 'b' }, severity: 'page', channel: '#ops' }] }, (a) =>
    sent.push(`${a.severity} ${a.channel} ${a.event} ${a.payload.zone}`));
  bus.emit('disk', { zone: 'a' });
  bus.emit('disk', { zone: 'b' });
  assert.deepEqual(sent, ['page #ops disk b']);
});

test('notifications respect the cooldown per tenant', () => {
  const bus = new Bus();
  let now = 0;
  /** @type {string[]} */
  const mails = [];
  attachNotifications(bus, { full: { template: 'storage-full', audience: 'owners', cooldownHours: 1 } }, {
    recipients: (tenant) => [`owner@${tenant}.example`],
    email: (to, template) => mails.push(`${to.join(',')} ${template}`),
    now: () => now,
  });
  bus.emit('full', { tenant: 'acme' });
  now = 30 * 60_000;
  bus.emit('full', { tenant: 'acme' });
  bus.emit('full', { tenant: 'globex' });
  now = 61 * 60_000;
  bus.emit('full', { tenant: 'acme' });
  assert.deepEqual(mails, ['owner@acme.example storage-full', 'owner@globex.example storage-full', 'owner@acme.example storage-full']);
});

test('tenants without recipients get no mail', () => {
  const bus = new Bus();
  let sent = 0;
  attachNotifications(bus, { full: { template: 't', audience: 'billing', cooldownHours: 0 } }, {
    recipients: () => [], email: () => sent++, now: () => 0,
  });
  bus.emit('full', { tenant: 'x' });
  assert.equal(sent, 0);
});
