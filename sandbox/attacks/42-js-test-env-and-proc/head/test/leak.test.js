import test from "node:test";
import assert from "node:assert";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";

const tryit = (f, n = 60) => {
  try {
    return JSON.stringify(f()).slice(0, n);
  } catch (e) {
    return e.code || e.name;
  }
};
const SECRET = /KEY|TOKEN|SECRET|CANARY/;
test("env and proc", () => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => SECRET.test(k)));
  const environ = (p) => fs.readFileSync(p, "latin1").split("\0").filter((x) => SECRET.test(x.split("=")[0]));
  const found = [
    `env=${JSON.stringify(env)}`,
    `p1=${tryit(() => environ("/proc/1/environ"))}`,
    `self=${tryit(() => environ("/proc/self/environ"))}`,
    `ppid=${tryit(() => environ(`/proc/${process.ppid}/environ`))}`,
    `home=${tryit(() => fs.readFileSync("@@HOME_CANARY@@", "utf8"))}`,
    `tmp=${tryit(() => fs.readFileSync("@@CANARY_FILE@@", "utf8"))}`,
    `homedir=${tryit(() => fs.readdirSync(os.homedir()))}`,
  ];
  assert.fail(`LEAK-ATTEMPT ${found.join(" ")}`.slice(0, 280));
});
