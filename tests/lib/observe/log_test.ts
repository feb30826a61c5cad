import assert from "node:assert/strict";
import { testEnv } from "@/tests/helpers.ts";
import { logger, neverLog, redact, setLogFormat } from "@/lib/observe/log.ts";

/** Runs `fn` with console.log and console.error captured; returns the lines written. */
async function captured(fn: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  const { log, error } = console;
  console.log = (s: unknown) => lines.push(String(s));
  console.error = (s: unknown) => lines.push(String(s));
  try {
    await fn();
  } finally {
    console.log = log;
    console.error = error;
  }
  return lines;
}

Deno.test("log - JSON lines carry the request id of the request that logged them", async () => {
  const env = await testEnv();
  const deeper = async () => {
    await new Promise((r) => setTimeout(r, 5));
    logger.warn("deeper", { step: 2 });
  };
  env.app.get("/_log_probe", async (c) => {
    logger.info("in handler", { step: 1 });
    await deeper();
    return c.text("ok");
  });
  setLogFormat("json");
  try {
    let ids: string[] = [];
    const lines = await captured(async () => {
      logger.info("before");
      const res = await Promise.all([1, 2].map(() => env.request("/_log_probe")));
      ids = res.map((r) => r.headers.get("x-request-id")!);
      logger.info("after");
    });
    const objs = lines.map((l) => JSON.parse(l));
    assert.equal(objs.length, 6);
    for (const o of objs) {
      assert.match(o.time, /^\d{4}-\d\d-\d\dT/);
      assert.ok(["info", "warn"].includes(o.level));
      assert.equal(typeof o.msg, "string");
    }
    assert.equal(objs[0].request_id, undefined);
    assert.equal(objs[5].request_id, undefined);
    const inRequests = objs.slice(1, 5);
    // Both requests' lines, each with its own id, the awaited one included.
    for (const id of ids) {
      const mine = inRequests.filter((o) => o.request_id === id).map((o) => o.msg).sort();
      assert.deepEqual(mine, ["deeper", "in handler"]);
    }
  } finally {
    setLogFormat("json");
    env.close();
  }
});

Deno.test("log - secrets are redacted by field name and by shape", async () => {
  neverLog("the-process-secret-value-0123456789");
  const key = "fw_live_abcdefghijklmnopqrstuvwxyz0123456789AB";
  assert.equal(redact(`key ${key} used`), "key [redacted] used");
  assert.equal(redact("Authorization: Bearer abc.def-ghi_jkl"), "Authorization: Bearer [redacted]");
  assert.equal(
    redact("cookie formwell_session=s3cr3tValue; x"),
    "cookie formwell_session=[redacted]; x",
  );
  assert.equal(redact("smtp://user:pa55word@mail.test:25"), "smtp://user:[redacted]@mail.test:25");
  assert.equal(redact("x the-process-secret-value-0123456789 y"), "x [redacted] y");
  setLogFormat("json");
  try {
    const [line] = await captured(() => {
      logger.error("failed with whsec_c2VjcmV0LXNlY3JldA==", {
        password: "hunter22",
        nested: { webhook_secret: "abc", note: `got ${key}` },
        error: new Error(`boom the-process-secret-value-0123456789`),
      });
      return Promise.resolve();
    });
    const o = JSON.parse(line);
    assert.equal(o.msg, "failed with [redacted]");
    assert.equal(o.password, "[redacted]");
    assert.deepEqual(o.nested, { webhook_secret: "[redacted]", note: "got [redacted]" });
    assert.match(o.error, /^Error: boom \[redacted\]/);
    assert.ok(!line.includes("hunter22") && !line.includes(key));
  } finally {
    setLogFormat("json");
  }
});

Deno.test("log - text lines: time, level, message, request id and fields", async () => {
  setLogFormat("text");
  const [line] = await captured(() => {
    logger.warn("job claim failed", { error: "TypeError", n: 2 });
    return Promise.resolve();
  }).finally(() => setLogFormat("json"));
  assert.match(line, /^\d{4}-\d\d-\d\dT\S+ WARN job claim failed error=TypeError n=2$/);
});
