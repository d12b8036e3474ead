'use strict';
// mocha reporter loaded inside the sandbox: one JSON line per test outcome, written as tests finish (a run
// killed by the timeout still reports what ran), each test named by its suites' titles.
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
