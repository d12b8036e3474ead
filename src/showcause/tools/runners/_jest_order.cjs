'use strict';
// jest test sequencer copied into the out dir for a run of several files in one process: the files in path
// order, never by size or earlier durations, so base and head run the same files in the same order and each
// meets the same neighbours.
class PathOrder {
  sort(tests) {
    return [...tests].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  shard(tests) {
    return tests;
  }

  allFailedTests(tests) {
    return tests;
  }

  cacheResults() {}
}

module.exports = PathOrder;
