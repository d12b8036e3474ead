'use strict';
// Run inside the sandbox, in the package's directory: mocha's own reading of its config (a .mocharc.js is
// code), written as JSON for the host to glob with: `node _mocha_config.cjs <mocha/lib/cli/options.js>`.
const fs = require('fs');

const {loadOptions} = require(process.argv[2]);
const options = loadOptions([]);
const strings = (value) => (Array.isArray(value) ? value : value == null ? [] : [value]).map(String);
fs.writeFileSync(process.env.SHOWCAUSE_REPORT, JSON.stringify({
  spec: strings(options._),
  extension: strings(options.extension),
  ignore: strings(options.ignore),
  recursive: options.recursive === true,
}));
