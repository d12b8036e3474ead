'use strict';
// mocha reporter loaded inside the sandbox: one JSON line per test outcome, written as tests finish (a run
// killed by the timeout still reports what ran), each test named by its suites' titles. A test file that does
// not load (a syntax error, a require that throws) stops mocha before any test runs or any reporter event:
// mocha's loading is wrapped (this module is required when mocha is constructed, before it loads files) so
// that file is written as failed, with its first error line (`load: true`). The test files load (and run) with
// the process.argv a plain `mocha` gives them, [node, mocha]: a test that parses process.argv (a CLI
// library's own) must not meet showcause's options (--reporter, --ignore…) and exit before it reports.
const fs = require('fs');

const OUT = process.env.SHOWCAUSE_REPORT || '';

function emit(row) {
  if (OUT) fs.appendFileSync(OUT, JSON.stringify(row) + '\n');
}

function titles(test) {
  try {
    return test.titlePath().map(String);
  } catch (err) {
    return [String(test.title)];
  }
}

function message(err) {
  const text = String((err && (err.message || err)) || '');
  return text.split('\n').map((s) => s.trim()).filter(Boolean).slice(0, 3).join(' ').slice(0, 400);
}

function fileOf(test) {
  let node = test;
  while (node && !node.file) node = node.parent;
  return node ? String(node.file) : '';
}

function loadMessage(err) {
  const name = err && err.name ? String(err.name) : 'Error';
  const first = String((err && (err.message || err)) || '').split('\n').map((s) => s.trim()).find(Boolean) || '';
  return `${name}: ${first}`.slice(0, 400);
}

function watchLoading() {
  const key = Object.keys(require.cache).find((k) => /[\\/]mocha[\\/]lib[\\/]mocha\.js$/.test(k));
  const Mocha = key ? require.cache[key].exports : null;
  if (!Mocha || !Mocha.prototype || Mocha.prototype.showcauseWatched) return;
  Mocha.prototype.showcauseWatched = true;
  for (const name of ['loadFiles', 'loadFilesAsync']) {
    const original = Mocha.prototype[name];
    if (typeof original !== 'function') continue;
    Mocha.prototype[name] = function (...args) {
      process.argv = process.argv.slice(0, 2);
      let current = '';
      this.suite.on('pre-require', (_context, file) => { current = String(file); });
      this.suite.on('post-require', () => { current = ''; });
      const failed = (err) => {
        if (current) emit({file: current, path: null, outcome: 'failed', load: true, message: loadMessage(err)});
        current = '';
      };
      try {
        const result = original.apply(this, args);
        return result && typeof result.then === 'function' ? result.catch((err) => { failed(err); throw err; }) : result;
      } catch (err) {
        failed(err);
        throw err;
      }
    };
  }
}

watchLoading();

function ShowcauseReporter(runner) {
  runner.on('pass', (test) => emit({file: fileOf(test), path: titles(test), outcome: 'passed'}));
  runner.on('pending', (test) => emit({file: fileOf(test), path: titles(test), outcome: 'skipped'}));
  runner.on('fail', (test, err) => {
    const text = message(err);
    const outcome = test.type === 'hook' ? 'error' : /Timeout of \d+ms exceeded/.test(text) ? 'timeout' : 'failed';
    emit({file: fileOf(test), path: titles(test), outcome, message: text});
  });
}

module.exports = ShowcauseReporter;
