import test from "node:test";

test("spin", () => {
  for (;;) {
    // never yields
  }
});
