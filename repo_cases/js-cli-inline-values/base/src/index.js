// @ts-check
export { parseArgs } from './parse.js';
export { formatHelp } from './help.js';
export { UsageError } from './errors.js';
