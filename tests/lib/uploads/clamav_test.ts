/**
 * Virus scanning against Debian's real clamd (tests/clamd.ts: a test-only EICAR database,
 * no network): an infected upload is refused with 422 `file_infected` and its bytes removed,
 * a clean one is accepted, one past clamd's StreamMaxLength is refused, and with clamd down the reference is refused with 503
 * `scanner_unavailable`; on local storage and on S3 (a real s3rver).
 */
import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "@/lib/config.ts";
import { parseClamavUrl, scanStream, verdictOf } from "@/lib/uploads/clamav.ts";
import { fileKey, incomingKey } from "@/lib/uploads/grants.ts";
import { makeForm, makeWorkspace } from "@/tests/helpers.ts";
import { type Clamd, clamdPresent, EICAR, startClamd } from "@/tests/clamd.ts";
import {
  DRIVERS,
  enc,
  FILES_FORM,
  type Grant,
  grantFor,
  SAMPLES,
  submitFiles,
  type UploadEnv,
  uploadEnv,
} from "@/tests/upload_fixtures.ts";

/** PUTs like a client; returns the status and the JSON body (if any). */
async function put(u: UploadEnv, g: Grant, bytes: Uint8Array, type: string) {
  const headers: Record<string, string> = { "content-type": type };
  if (g.storageToken) headers.authorization = `Bearer ${g.storageToken}`;
  const init = { method: "PUT", headers, body: bytes.slice() };
  const res = u.driver === "local"
    ? await u.env.app.request(g.uploadUrl, {
      ...init,
      headers: { ...headers, "content-length": String(bytes.byteLength) },
    })
    : await fetch(g.uploadUrl, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

function infectedItems(body: Record<string, unknown>): { field: string; type: string }[] {
  return ((body.errors ?? []) as { field: string; type: string }[])
    .filter((i) => i.type === "file_infected");
}

Deno.test("uploads clamav - CLAMAV_URL and clamd's replies", () => {
  assert.equal(loadConfig({}).clamavUrl, undefined, "off by default");
  assert.equal(loadConfig({ CLAMAV_URL: "tcp://clamav:3310" }).clamavUrl, "tcp://clamav:3310");
  assert.throws(() => loadConfig({ CLAMAV_URL: "http://clamav:3310" }), ConfigError);
  assert.throws(() => loadConfig({ CLAMAV_URL: "tcp://clamav" }), ConfigError);
  assert.deepEqual(parseClamavUrl("tcp://[::1]:3310"), { hostname: "::1", port: 3310 });
  assert.deepEqual(verdictOf("stream: OK"), { clean: true });
  assert.deepEqual(verdictOf("stream: Eicar-Signature FOUND"), {
    clean: false,
    signature: "Eicar-Signature",
  });
  assert.deepEqual(verdictOf("INSTREAM size limit exceeded. ERROR"), {
    clean: false,
    error: "INSTREAM size limit exceeded.",
  });
});

const present = await clamdPresent();

Deno.test({
  name: "uploads clamav - infected refused and removed, clean accepted, clamd down is 503",
  ignore: !present,
  fn: async (t) => {
    const clamd: Clamd = await startClamd();
    try {
      await t.step("the protocol: OK, FOUND, and StreamMaxLength's refusal", async () => {
        const stream = (bytes: Uint8Array) => new Blob([bytes.slice()]).stream();
        assert.deepEqual(await scanStream(clamd.url, stream(SAMPLES.text)), { clean: true });
        const found = await scanStream(clamd.url, stream(enc(`Hello\n${EICAR}\n`)));
        assert.equal(found.clean, false);
        assert.match((found as { signature: string }).signature, /Formwell\.Test\.EICAR/);
        // 2 MiB against StreamMaxLength 1M: clamd refuses to scan (not clean, not infected).
        const big = await scanStream(clamd.url, stream(new Uint8Array(2 * 1024 * 1024)));
        assert.deepEqual(Object.keys(big).sort(), ["clean", "error"]);
        assert.match((big as { error: string }).error, /size limit/i);
      });
      for (const driver of DRIVERS) {
        await t.step(`${driver}: EICAR is 422 file_infected and its bytes are gone`, async () => {
          const u = await uploadEnv(driver, { CLAMAV_URL: clamd.url });
          try {
            const ws = await makeWorkspace(u.deps, "pro");
            const form = await makeForm(u.deps, ws, FILES_FORM);
            const bytes = enc(EICAR);
            const g = await grantFor(u, form.id, "fld_cv", "cv.txt", "text/plain", bytes.length);
            const putRes = await put(u, g, bytes, "text/plain");
            if (driver === "local") {
              // The local driver verifies at the PUT: refused there already.
              assert.equal(putRes.status, 422, JSON.stringify(putRes.body));
              assert.equal(infectedItems(putRes.body)[0]?.field, "cv");
            } else assert.equal(putRes.status, 200);
            const r = await submitFiles(u, form.id, { name: "Eve", cv: { path: g.path } });
            assert.equal(r.status, 422, JSON.stringify(r.body));
            assert.equal(infectedItems(r.body)[0]?.field, "cv", JSON.stringify(r.body));
            assert.equal(await u.deps.storage.head(incomingKey(g.path)), null);
            assert.equal(await u.deps.storage.head(fileKey(g.path)), null);

            const clean = await grantFor(u, form.id, "fld_cv", "cv.txt", "text/plain", 26);
            assert.equal((await put(u, clean, SAMPLES.text, "text/plain")).status, 200);
            const ok = await submitFiles(u, form.id, { name: "Ada", cv: { path: clean.path } });
            assert.equal(ok.status, 201, JSON.stringify(ok.body));
            assert.ok(await u.deps.storage.head(fileKey(clean.path)));

            // Past clamd's StreamMaxLength (1M here) a file cannot be scanned: refused.
            const big = enc("plain text line\n".repeat(100_000));
            const bg = await grantFor(u, form.id, "fld_any", "big.txt", "text/plain", big.length);
            await put(u, bg, big, "text/plain");
            const tooBig = await submitFiles(u, form.id, { name: "Ada", any: { path: bg.path } });
            assert.equal(tooBig.status, 422, JSON.stringify(tooBig.body));
            const item =
              (tooBig.body.errors as { field: string; type: string; message: string }[])[0];
            assert.equal(item.type, "file");
            assert.match(item.message, /larger than the virus scanner accepts/);
          } finally {
            await u.close();
          }
        });
      }
      await clamd.stop();
      for (const driver of DRIVERS) {
        await t.step(`${driver}: clamd down is 503 scanner_unavailable`, async () => {
          const u = await uploadEnv(driver, { CLAMAV_URL: clamd.url });
          try {
            const ws = await makeWorkspace(u.deps, "pro");
            const form = await makeForm(u.deps, ws, FILES_FORM);
            const g = await grantFor(u, form.id, "fld_cv", "cv.txt", "text/plain", 26);
            const putRes = await put(u, g, SAMPLES.text, "text/plain");
            if (driver === "local") {
              assert.equal(putRes.status, 503);
              assert.equal(putRes.body.code, "scanner_unavailable");
            } else assert.equal(putRes.status, 200);
            const r = await submitFiles(u, form.id, { name: "Ada", cv: { path: g.path } });
            assert.equal(r.status, 503, JSON.stringify(r.body));
            assert.equal(r.body.code, "scanner_unavailable");
          } finally {
            await u.close();
          }
        });
      }
    } finally {
      await clamd.stop();
    }
  },
});
