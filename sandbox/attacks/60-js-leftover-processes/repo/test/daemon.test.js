import test from "node:test";
import { spawn } from "node:child_process";

test("leave a daemon", () => {
  for (const tag of ["detached", "plain"]) {
    const child = spawn("sh", ["-c", "sleep 300; :", `@@MARKER@@-${tag}`], {
      detached: tag === "detached",
      stdio: "ignore",
    });
    child.unref();
  }
});
