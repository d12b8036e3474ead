import test from 'node:test';
import assert from 'node:assert/strict';
import { composeMessage } from '../src/compose.js';
import { lookup } from '../src/catalog.js';

test('composes a localized message', () => {
  const m = composeMessage('pickup_ready', 'de-AT', { store: 'Nordwind', order_no: 'N-77', until: '18:00', code: 'K4P' });
  assert.equal(m.text, 'Nordwind: Bestellung N-77 liegt bis 18:00 zur Abholung bereit. Code K4P.');
  assert.equal(m.encoding, 'GSM-7');
});

test('falls back to English', () => {
  assert.match(lookup('login_code', 'pt-BR'), /sign-in code/);
  assert.throws(() => lookup('promo_blast', 'en'), /unknown message/);
});

test('refuses messages longer than three segments', () => {
  assert.throws(
    () => composeMessage('login_code', 'en', { code: '1', store: 'x'.repeat(500) }),
    /login_code is 4 segments long \(max 3\)/,
  );
});
