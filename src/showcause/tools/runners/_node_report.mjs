// node --test reporter loaded inside the sandbox: one JSON line per test as it finishes, with the test file
// it ran in, so that several test files can share one `node --test` process (one file after another, each in
// a child process of its own, as node runs them) and be read back one by one. A test's own `file` is where it
// was defined (a helper module can define the tests of many files), so the file a test ran in is the one node
// started last: its file-level test (named by its path) is dequeued before any of its tests report, and a
// line `{"start": FILE}` says so. Each line also keeps where the test was defined, so that the reader can
// refuse a batch whose tests say they belong to another file of it. Tests are named by their suites' names and
// nested the way node's own junit reporter nests them (a test with subtests is a suite, not a test), so a file
// gives the same test ids alone, through junit, as in a batch. The last line says the run ended.
const MAX_DEPTH = 64;

function text(value) {
  return String(value ?? '').trim().split('\n')[0].slice(0, 300);
}

export default async function* showcauseReport(source) {
  let run = '';                // the test file running now
  const current = new Map();   // file -> the test open in it ({names, nesting, parent, children})
  for await (const event of source) {
    const data = event.data || {};
    const defined = String(data.file ?? '');
    if (event.type === 'test:dequeue' && data.nesting === 0 && data.name === data.file) {
      run = defined;
      yield JSON.stringify({start: run}) + '\n';
    } else if (event.type === 'test:start') {
      const parent = current.get(run) || null;
      const names = [...(parent ? parent.names : []), String(data.name ?? '')];
      const node = {names, nesting: data.nesting, parent, children: []};
      if (parent) parent.children.push(node);
      current.set(run, node);
    } else if (event.type === 'test:pass' || event.type === 'test:fail') {
      const node = current.get(run);
      if (!node) {   // an outcome without its start (a file that failed as a whole): a test of its own
        yield row(run, defined, [String(data.name ?? '')], event, data);
        continue;
      }
      if (node.nesting === data.nesting) current.set(run, node.parent);
      if (node.children.length === 0 && node.names.length <= MAX_DEPTH) {
        yield row(run, defined, node.names, event, data);
      }
    }
  }
  yield JSON.stringify({end: true}) + '\n';
}

function row(run, defined, names, event, data) {
  const error = data.details && data.details.error;
  const failed = event.type === 'test:fail';
  return JSON.stringify({
    file: run, defined, path: names, skipped: Boolean(data.skip || data.todo), failed,
    type: failed ? String((error && (error.failureType || error.code)) || '') : '',
    message: failed ? text(error && error.message) : '',
  }) + '\n';
}
