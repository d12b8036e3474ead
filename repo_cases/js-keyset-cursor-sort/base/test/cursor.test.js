import test from 'node:test';
import assert from 'node:assert/strict';
import { encodeCursor, decodeCursor } from '../src/cursor.js';

test('round-trips a cursor through an opaque URL-safe token', () => {
  const token = encodeCursor({ id: 42 });
  assert.match(token, /^[A-Za-z0-9_-]+$/);
  assert.deepEqual(decodeCursor(token), { id: 42 });
});

test('rejects tokens it did not produce', () => {
  assert.throws(() => decodeCursor('%%%'), /malformed cursor/);
  assert.throws(() => decodeCursor(Buffer.from('{"i":"7"}').toString('base64url')), /malformed cursor/);
  assert.throws(() => decodeCursor(Buffer.from('null').toString('base64url')), /malformed cursor/);
});
