'use strict';
// jest launcher copied into the out dir: `node _jest_run.cjs <jest/bin/jest.js> <options…>`. jest gets
// showcause's options as its arguments, while the tests, which run in this very process (--runInBand) and see
// a copy of its process.argv, see what a plain `jest` gives them: [node, jest]. A test that parses
// process.argv (a CLI library's own: commander's `program.parse()`) would otherwise meet --ci, --json,
// --outputFile… and exit before jest writes its report.
const fs = require('fs');
const { createRequire } = require('module');

const [bin, ...args] = process.argv.slice(2);
let cli = null;
try {
  // jest-cli as jest's own bin finds it (from its real path: pnpm links packages into node_modules).
  cli = createRequire(fs.realpathSync(bin))('jest-cli');
} catch (err) {
  cli = null;
}
if (cli && typeof cli.run === 'function') {
  if (process.env.NODE_ENV == null) process.env.NODE_ENV = 'test';   // as jest-cli's bin sets it
  process.argv = [process.argv[0], bin];
  cli.run(args);
} else {
  // A jest whose jest-cli cannot be reached so: its own bin, with the options where it reads them.
  process.argv = [process.argv[0], bin, ...args];
  require(bin);
}
