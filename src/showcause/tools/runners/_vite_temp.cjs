'use strict';
// Preloaded into vitest's processes by showcause (`node --require`, from the out dir). vite 6 and later bundle
// a TypeScript or ES-module config (`vitest.config.mts`) into `<nearest node_modules>/.vite-temp/` and import
// it from there. The sandbox binds node_modules read-only, and bubblewrap cannot make a private mount there
// either (the mount point would have to be created in the read-only bind), so that mkdir fails with EROFS or
// ENOENT, which vite treats as fatal. vite's own answer to a node_modules it may not write is EACCES (vite
// 6.0.3 and later): it then writes the bundled config beside the config file — in the throw-away copy — and
// deletes it once loaded, as vite 5 always did. So creating a `node_modules/.vite-temp` is refused here with
// EACCES before anything is touched, at every isolation level: node_modules is never written, not even at
// `none`, where it is the user's own. Every other call goes through unchanged.
const fs = require('fs');
const path = require('path');
const { fileURLToPath } = require('url');
const { syncBuiltinESMExports } = require('module');

function viteTemp(target) {
  let text = target;
  try {
    if (target instanceof URL) text = fileURLToPath(target);
    else if (Buffer.isBuffer(target)) text = target.toString();
  } catch (err) {
    return false;
  }
  if (typeof text !== 'string') return false;
  const full = path.resolve(text);
  return path.basename(full) === '.vite-temp' && path.basename(path.dirname(full)) === 'node_modules';
}

function refusal(target) {
  const err = new Error(`EACCES: permission denied, mkdir '${target}'`);
  Object.assign(err, { errno: -13, code: 'EACCES', syscall: 'mkdir', path: String(target) });
  return err;
}

const { mkdir, mkdirSync } = fs;
const mkdirPromise = fs.promises.mkdir;
fs.promises.mkdir = function (target, ...rest) {
  return viteTemp(target) ? Promise.reject(refusal(target)) : mkdirPromise.call(this, target, ...rest);
};
fs.mkdir = function (target, ...rest) {
  if (!viteTemp(target)) return mkdir.call(this, target, ...rest);
  const done = rest[rest.length - 1];
  if (typeof done === 'function') process.nextTick(done, refusal(target));
  return undefined;
};
fs.mkdirSync = function (target, ...rest) {
  if (viteTemp(target)) throw refusal(target);
  return mkdirSync.call(this, target, ...rest);
};
syncBuiltinESMExports();   // `import { mkdir } from 'node:fs/promises'` sees the same
