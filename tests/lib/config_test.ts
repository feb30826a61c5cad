import assert from "node:assert/strict";
import { ConfigError, DEFAULT_RATE_LIMITS, loadConfig } from "@/lib/config.ts";

Deno.test("config - defaults, overrides and fail-fast errors", async (t) => {
  await t.step("embedded defaults", () => {
    const c = loadConfig({});
    assert.equal(c.port, 8000);
    assert.equal(c.baseUrl, "http://localhost:8000");
    assert.equal(c.kvPath, "./data/formwell.kv");
    assert.equal(c.storage, "local");
    assert.equal(c.trustProxy, false);
    assert.deepEqual(c.rateLimits, { ...DEFAULT_RATE_LIMITS });
  });
  await t.step("HOST: loopback unless production; an explicit value wins", () => {
    assert.equal(loadConfig({}).host, "127.0.0.1");
    assert.equal(loadConfig({ FORMWELL_ENV: "test" }).host, "127.0.0.1");
    assert.equal(loadConfig({ FORMWELL_ENV: "production" }).host, "0.0.0.0");
    assert.equal(loadConfig({ FORMWELL_ENV: "production", HOST: "10.0.0.5" }).host, "10.0.0.5");
    assert.equal(loadConfig({ HOST: "::" }).host, "::");
    assert.throws(() => loadConfig({ HOST: "http://x/" }), /HOST/);
  });
  await t.step("RATE_LIMITS overrides single values", () => {
    const c = loadConfig({ RATE_LIMITS: '{"submit":100000}', TRUST_PROXY: "on", PORT: "9000" });
    assert.equal(c.rateLimits.submit, 100000);
    assert.equal(c.rateLimits.schema, 60);
    assert.equal(c.trustProxy, true);
    assert.equal(c.baseUrl, "http://localhost:9000");
  });
  await t.step("every invalid variable is listed", () => {
    assert.throws(
      () => loadConfig({ PORT: "x", RATE_LIMITS: '{"nope":1}', STORAGE: "ftp" }),
      (e: Error) =>
        e instanceof ConfigError && /PORT/.test(e.message) && /RATE_LIMITS/.test(e.message) &&
        /STORAGE/.test(e.message),
    );
    assert.throws(() => loadConfig({ STORAGE: "s3" }), /S3_BUCKET/);
  });
  await t.step("on Deno Deploy KV_PATH unset means the platform KV, and storage must be S3", () => {
    assert.throws(() => loadConfig({ DENO_DEPLOYMENT_ID: "x" }), /STORAGE/);
    const c = loadConfig({ DENO_DEPLOYMENT_ID: "x", STORAGE: "s3", S3_BUCKET: "b" });
    assert.equal(c.kvPath, undefined);
  });
});

Deno.test("config - the demo seed is off by default in production", () => {
  assert.equal(loadConfig({}).seed, true);
  assert.equal(loadConfig({ FORMWELL_ENV: "development" }).seed, true);
  assert.equal(loadConfig({ FORMWELL_ENV: "production" }).seed, false);
  assert.equal(loadConfig({ FORMWELL_ENV: "production", FORMWELL_SEED: "1" }).seed, true);
  assert.equal(loadConfig({ FORMWELL_SEED: "0" }).seed, false);
});

Deno.test("config - BODY_TIMEOUT_MS sets the body deadline (10 s by default)", () => {
  assert.equal(loadConfig({}).bodyTimeoutMs, 10_000);
  assert.equal(loadConfig({ BODY_TIMEOUT_MS: "2500" }).bodyTimeoutMs, 2500);
  assert.throws(() => loadConfig({ BODY_TIMEOUT_MS: "0" }), /BODY_TIMEOUT_MS/);
});
