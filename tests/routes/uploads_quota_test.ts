import assert from "node:assert/strict";
import { sweepUploads } from "@/lib/jobs/cleanup_upload.ts";
import { keys } from "@/lib/kv/keys.ts";
import { u64Value } from "@/lib/kv/kv.ts";
import { PENDING_POOL_BYTES, POOL_BUCKET_MS } from "@/lib/uploads/pool.ts";
import {
  fileKey,
  GRANT_TTL_MS,
  UPLOAD_GRACE_MS,
  UPLOAD_URL_TTL_SEC,
  type UploadGrant,
} from "@/lib/uploads/grants.ts";
import { MB } from "@/lib/rules/files.ts";
import { makeForm, makeWorkspace } from "@/tests/helpers.ts";
import {
  assertCounterExact,
  DRIVERS,
  FILES_FORM,
  type Grant,
  grantFor,
  putBytes,
  requestUpload,
  SAMPLES,
  storageUsed,
  submitFiles,
  type UploadEnv,
  uploadEnv,
} from "@/tests/upload_fixtures.ts";

const pdf = (size: number) => ({
  fieldId: "fld_any",
  fileName: "big.pdf",
  contentType: "application/pdf",
  sizeBytes: size,
});

/** Uploads the sample PDF from `ip` (URL and PUT); the grant is verified, not attached. */
async function uploadPdf(u: UploadEnv, formId: string, ip: string): Promise<Grant> {
  const res = await requestUpload(u, formId, pdf(SAMPLES.pdf.byteLength), ip);
  assert.equal(res.status, 200, await res.clone().text());
  const g: Grant = await res.json();
  assert.equal(await putBytes(u, g, SAMPLES.pdf, "application/pdf"), 200);
  return g;
}

/** Bytes in the workspace's pending pools that count now (every client address). */
async function pooled(u: UploadEnv, wsId: string): Promise<number> {
  let n = 0;
  for await (const e of u.deps.kv.list({ prefix: keys.uploadPools() })) {
    const [, bucket, ws] = e.key;
    if (ws === wsId && Number(bucket) * POOL_BUCKET_MS > u.deps.now()) n += u64Value(e.value);
  }
  return n;
}

for (const driver of DRIVERS) {
  Deno.test(`uploads (${driver}) - one address's pending pool is capped, others are not`, async () => {
    const u = await uploadEnv(driver);
    try {
      const ws = await makeWorkspace(u.deps, "free"); // 100 MB, 10 MB a file
      const form = await makeForm(u.deps, ws, FILES_FORM);
      const tooBig = await requestUpload(u, form.id, pdf(10 * MB + 1));
      assert.equal(tooBig.status, 422);
      assert.equal((await tooBig.json()).errors[0].type, "maxSizeMB");
      // Ten 10 MB uploads from one address: the first five fit its 50 MB pool.
      const per = PENDING_POOL_BYTES / (10 * MB);
      assert.equal(per, 5);
      for (let i = 0; i < 10; i++) {
        const res = await requestUpload(u, form.id, pdf(10 * MB), "203.0.113.1");
        const body = await res.json();
        if (i < per) {
          assert.equal(res.status, 200, JSON.stringify(body));
          continue;
        }
        assert.equal(res.status, 429, `upload ${i + 1}`);
        assert.equal(body.code, "quota_exceeded");
        assert.match(body.error, /waiting for a submission from your network/);
      }
      assert.equal(await pooled(u, ws.id), 50 * MB);
      assert.equal(await storageUsed(u, ws.id), 0);
      // Never uploaded, the five grants are removed once their URLs expired, and the
      // address has room again.
      u.skew.ms = UPLOAD_URL_TTL_SEC * 1000 + UPLOAD_GRACE_MS + 1000;
      assert.equal(await sweepUploads(u.deps), per);
      assert.equal(await pooled(u, ws.id), 0);
      assert.equal((await requestUpload(u, form.id, pdf(10 * MB), "203.0.113.1")).status, 200);
      // Another address is not locked out, and what it stores is what counts.
      const g = await uploadPdf(u, form.id, "198.51.100.77");
      assert.equal((await submitFiles(u, form.id, { any: { path: g.path } })).status, 201);
      assert.equal(await assertCounterExact(u, ws.id), SAMPLES.pdf.byteLength);
    } finally {
      await u.close();
    }
  });

  Deno.test(`uploads (${driver}) - unattached bytes never count against the workspace`, async () => {
    const u = await uploadEnv(driver);
    try {
      const ws = await makeWorkspace(u.deps, "free");
      const form = await makeForm(u.deps, ws, FILES_FORM);
      const size = SAMPLES.pdf.byteLength;
      // Files stored earlier leave room for two more PDFs.
      const base = 100 * MB - 2 * size;
      await u.deps.kv.set(keys.storageUsed(ws.id), new Deno.KvU64(BigInt(base)));
      // A stranger uploads (and the bytes are verified) but never submits.
      const stray: Grant[] = [];
      for (let i = 0; i < 4; i++) stray.push(await uploadPdf(u, form.id, "203.0.113.9"));
      assert.equal(await storageUsed(u, ws.id), base);
      assert.equal(await pooled(u, ws.id), 4 * size);
      // Real visitors still upload and submit; each attach is charged.
      for (const ip of ["198.51.100.1", "198.51.100.2"]) {
        const g = await uploadPdf(u, form.id, ip);
        const r = await submitFiles(u, form.id, { any: { path: g.path } });
        assert.equal(r.status, 201, JSON.stringify(r.body));
      }
      assert.equal(await assertCounterExact(u, ws.id, base), 100 * MB);
      assert.equal(await pooled(u, ws.id), 4 * size); // attached grants left their pools

      // The stray grants expire after an hour and take their pool entries with them.
      u.skew.ms = GRANT_TTL_MS + 60_000;
      assert.equal(await sweepUploads(u.deps), 4);
      assert.equal(await pooled(u, ws.id), 0);
      for (const g of stray) assert.equal(await u.deps.storage.head(fileKey(g.path)), null);
      assert.equal(await storageUsed(u, ws.id), 100 * MB);
    } finally {
      await u.close();
    }
  });

  Deno.test(`uploads (${driver}) - the storage cap holds when files are attached`, async () => {
    const u = await uploadEnv(driver);
    try {
      const ws = await makeWorkspace(u.deps, "free"); // 100 MB
      const form = await makeForm(u.deps, ws, FILES_FORM);
      const size = SAMPLES.pdf.byteLength;
      // Room for one more PDF, not two.
      const base = 100 * MB - size - 1;
      await u.deps.kv.set(keys.storageUsed(ws.id), new Deno.KvU64(BigInt(base)));
      const over = await requestUpload(u, form.id, pdf(size + 2));
      assert.equal(over.status, 429);
      assert.equal((await over.json()).code, "quota_exceeded");

      // Both fit on their own, so both are uploaded and verified; only one can be attached.
      const mk = () => grantFor(u, form.id, "fld_any", "a.pdf", "application/pdf", size);
      const grants: Grant[] = [await mk(), await mk()];
      await Promise.all(grants.map((g) => putBytes(u, g, SAMPLES.pdf, "application/pdf")));
      assert.equal(await storageUsed(u, ws.id), base);
      const results = await Promise.all(
        grants.map((g) => submitFiles(u, form.id, { any: { path: g.path } })),
      );
      const won = results.findIndex((r) => r.status === 201);
      assert.ok(won >= 0, JSON.stringify(results));
      const lost = results[1 - won];
      assert.equal(lost.status, 422, JSON.stringify(lost.body));
      assert.match(JSON.stringify(lost.body.errors), /storage/);
      const g = (await u.deps.kv.get<UploadGrant>(keys.uploadGrant(grants[1 - won].path))).value;
      assert.equal(g?.state, "verified"); // not attached, not charged; expires unclaimed
      assert.equal(await assertCounterExact(u, ws.id, base), base + size);
      assert.ok(base + size <= 100 * MB);

      // Two files in one submission are charged together, never past the cap.
      await u.deps.kv.set(keys.storageUsed(ws.id), new Deno.KvU64(BigInt(100 * MB - size - 1)));
      const a = await grantFor(u, form.id, "fld_any", "a.txt", "text/plain", SAMPLES.text.length);
      const b = await grantFor(u, form.id, "fld_cv", "b.txt", "text/plain", SAMPLES.text.length);
      for (const x of [a, b]) assert.equal(await putBytes(u, x, SAMPLES.text, "text/plain"), 200);
      await u.deps.kv.set(
        keys.storageUsed(ws.id),
        new Deno.KvU64(BigInt(100 * MB - SAMPLES.text.length - 1)),
      );
      const both = await submitFiles(u, form.id, {
        any: { path: a.path },
        cv: { path: b.path },
      });
      assert.equal(both.status, 422, JSON.stringify(both.body));
      assert.equal(await storageUsed(u, ws.id), 100 * MB - SAMPLES.text.length - 1);
    } finally {
      await u.close();
    }
  });
}
