// @ts-check

/** @type {import('../src/spec.js').OptionSpec[]} */
export const deploySpecs = [
  { name: 'env', alias: 'e', type: 'string', default: 'staging', description: 'Target environment', valueName: 'NAME' },
  { name: 'replicas', alias: 'r', type: 'number', description: 'Number of replicas' },
  { name: 'tag', alias: 't', type: 'string', multiple: true, description: 'Extra image tag' },
  { name: 'verbose', alias: 'v', type: 'boolean', description: 'Log every step' },
  { name: 'quiet', alias: 'q', type: 'boolean', description: 'Only log errors' },
  { name: 'dry-run', type: 'boolean', description: 'Print the plan, change nothing' },
];
