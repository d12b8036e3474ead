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
import http from "node:http";

const get = (url) =>
  new Promise((resolve) => {
    const req = http.get(url, { timeout: 2000 }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve("CONNECTED " + body.slice(0, 60)));
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", (e) => resolve(e.code || e.message));
  });
const raw = (port, host) =>
  new Promise((resolve) => {
    const s = net.connect(port, host);
    s.on("connect", () => resolve("CONNECTED"));
    s.on("error", (e) => resolve(e.code));
    setTimeout(() => { s.destroy(); resolve("timeout"); }, 2000);
  });
const viaFetch = async (url) => {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return "CONNECTED " + (await r.text()).slice(0, 60);
  } catch (e) {
    return (e.cause && e.cause.code) || e.name;
  }
};

test("loopback", async () => {
  const a = await get("http://127.0.0.1:@@PORT@@/");
  const b = await get("http://localhost:@@PORT@@/");
  const c = await get("http://1.1.1.1/");
  const d = await raw(@@PORT@@, "127.0.0.1");
  assert.fail(`LEAK-ATTEMPT a=${a} b=${b} c=${c} d=${d}`);
});

test("fetch api", async () => {
  assert.fail(`LEAK-ATTEMPT fetch=${await viaFetch("http://127.0.0.1:@@PORT@@/")}`);
});
