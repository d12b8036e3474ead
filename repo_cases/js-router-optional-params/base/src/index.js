// @ts-check
export { Router, METHODS } from './router.js';
export { dispatch } from './dispatch.js';
export { parseQuery } from './query.js';
export { compilePattern, matchPattern } from './pattern.js';
