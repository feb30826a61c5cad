import assert from "node:assert/strict";
import { keys } from "@/lib/kv/keys.ts";
import { fileKey, incomingKey, MB, type UploadGrant } from "@/lib/uploads/grants.ts";
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
  uploadEnv,
} from "@/tests/upload_fixtures.ts";

const pdf = (size: number) => ({
  fieldId: "fld_any",
  fileName: "big.pdf",
  contentType: "application/pdf",
  sizeBytes: size,
});

for (const driver of DRIVERS) {
  Deno.test(`uploads (${driver}) - upload URLs alone never fill the storage`, async () => {
    const u = await uploadEnv(driver);
    try {
      const ws = await makeWorkspace(u.deps, "starter"); // 1,000 MB, 25 MB a file
      const form = await makeForm(u.deps, ws, FILES_FORM);
      const tooBig = await requestUpload(u, form.id, pdf(25 * MB + 1));
      assert.equal(tooBig.status, 422);
      assert.equal((await tooBig.json()).errors[0].type, "maxSizeMB");
      // 40 URLs of 25 MB from 4 addresses (within 10 a minute each): the whole quota.
      for (let i = 0; i < 40; i++) {
        const res = await requestUpload(u, form.id, pdf(25 * MB), `203.0.113.${i % 4}`);
        assert.equal(res.status, 200);
        await res.body?.cancel();
      }
      assert.equal(await storageUsed(u, ws.id), 0);
      // A real visitor is not locked out, and what they store is what counts.
      const g = await grantFor(
        u,
        form.id,
        "fld_any",
        "cv.pdf",
        "application/pdf",
        SAMPLES.pdf.byteLength,
      );
      assert.equal(await putBytes(u, g, SAMPLES.pdf, "application/pdf"), 200);
      assert.equal((await submitFiles(u, form.id, { any: { path: g.path } })).status, 201);
      assert.equal(await assertCounterExact(u, ws.id), SAMPLES.pdf.byteLength);
    } finally {
      await u.close();
    }
  });

  Deno.test(`uploads (${driver}) - the storage cap holds when bytes are verified`, async () => {
    const u = await uploadEnv(driver);
    try {
      const ws = await makeWorkspace(u.deps, "free"); // 100 MB
      const form = await makeForm(u.deps, ws, FILES_FORM);
      const size = SAMPLES.pdf.byteLength;
      // Stands for files stored earlier: room for one more PDF, not two.
      const base = 100 * MB - size - 1;
      await u.deps.kv.set(keys.storageUsed(ws.id), new Deno.KvU64(BigInt(base)));
      const over = await requestUpload(u, form.id, pdf(size + 2));
      assert.equal(over.status, 429);
      assert.equal((await over.json()).code, "quota_exceeded");

      // Both fit on their own, so both get a URL; only one can be stored.
      const mk = () => grantFor(u, form.id, "fld_any", "a.pdf", "application/pdf", size);
      const grants: Grant[] = [await mk(), await mk()];
      await Promise.all(grants.map((g) => putBytes(u, g, SAMPLES.pdf, "application/pdf")));
      const results = await Promise.all(
        grants.map((g) => submitFiles(u, form.id, { any: { path: g.path } })),
      );
      const won = results.findIndex((r) => r.status === 201);
      assert.ok(won >= 0, JSON.stringify(results));
      const lost = results[1 - won];
      assert.equal(lost.status, 422, JSON.stringify(lost.body));
      assert.match(JSON.stringify(lost.body.errors), /storage/);
      const loser = grants[1 - won];
      const g = (await u.deps.kv.get<UploadGrant>(keys.uploadGrant(loser.path))).value;
      assert.equal(g?.state, "rejected");
      assert.equal(await u.deps.storage.head(fileKey(loser.path)), null);
      assert.equal(await u.deps.storage.head(incomingKey(loser.path)), null);
      assert.equal(await assertCounterExact(u, ws.id, base), base + size);
      assert.ok(base + size <= 100 * MB);

      // Room taken by another verification between the early look and the commit: the
      // checked commit still refuses, and the already promoted copy is removed.
      await u.deps.kv.set(keys.storageUsed(ws.id), new Deno.KvU64(BigInt(base)));
      const late = await mk();
      const storage = u.deps.storage;
      const promote = storage.promote;
      const taken = 100 * MB - size + 1;
      storage.promote = async (...args: Parameters<typeof promote>) => {
        await promote.apply(storage, args);
        await u.deps.kv.set(keys.storageUsed(ws.id), new Deno.KvU64(BigInt(taken)));
      };
      try {
        await putBytes(u, late, SAMPLES.pdf, "application/pdf");
        const r = await submitFiles(u, form.id, { any: { path: late.path } });
        assert.equal(r.status, 422, JSON.stringify(r.body));
      } finally {
        storage.promote = promote;
      }
      const gl = (await u.deps.kv.get<UploadGrant>(keys.uploadGrant(late.path))).value;
      assert.equal(gl?.state, "rejected");
      assert.match(gl?.reason ?? "", /storage/);
      assert.equal(await u.deps.storage.head(fileKey(late.path)), null);
      assert.equal(await storageUsed(u, ws.id), taken);
    } finally {
      await u.close();
    }
  });
}
