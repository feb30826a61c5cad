import assert from "node:assert/strict";
import { sweepUploads } from "@/lib/jobs/cleanup_upload.ts";
import { dispatch } from "@/lib/jobs/mod.ts";
import { keys } from "@/lib/kv/keys.ts";
import type { FormDefinition } from "@/lib/schemas.ts";
import {
  fileKey,
  incomingKey,
  issueGrant,
  UPLOAD_URL_TTL_SEC,
  type UploadGrant,
} from "@/lib/uploads/grants.ts";
import { makeForm, makeKey, makeWorkspace, postJson } from "@/tests/helpers.ts";
import {
  assertCounterExact,
  DRIVERS,
  grantFor,
  putBytes,
  SAMPLES,
  storageUsed,
  submitFiles,
  uploadEnv,
} from "@/tests/upload_fixtures.ts";

const DOC_FORM: FormDefinition = {
  name: "Docs",
  fields: [{ id: "fld_doc", name: "doc", type: "file", allowedTypes: ["text/plain"] }],
};

/** Runs `fn` over `items`, `n` at a time. */
async function pool<T>(items: T[], n: number, fn: (item: T, i: number) => Promise<void>) {
  for (let i = 0; i < items.length; i += n) {
    await Promise.all(items.slice(i, i + n).map((item, j) => fn(item, i + j)));
  }
}

async function countFiles(dir: string): Promise<number> {
  let n = 0;
  for await (const e of Deno.readDir(dir)) {
    n += e.isDirectory ? await countFiles(`${dir}/${e.name}`) : 1;
  }
  return n;
}

for (const driver of DRIVERS) {
  Deno.test(`cleanup_upload (${driver}) - 1000 grants, 500 uploaded, 250 referenced`, async () => {
    const u = await uploadEnv(driver);
    try {
      const ws = await makeWorkspace(u.deps, "pro");
      const form = await makeForm(u.deps, ws, DOC_FORM);
      const field = form.fields[0];
      const bodies = Array.from({ length: 1000 }, (_, i) => new TextEncoder().encode(`doc ${i}\n`));
      const grants: UploadGrant[] = [];
      for (const bytes of bodies) {
        grants.push(
          await issueGrant(u.deps, form, ws, field, {
            fileName: "doc.txt",
            contentType: "text/plain",
            size: bytes.byteLength,
          }),
        );
      }
      await pool(grants.slice(0, 500), 10, async (g, i) => {
        const s = await u.deps.storage.signUpload(
          incomingKey(g.path),
          "text/plain",
          g.size_bytes,
          UPLOAD_URL_TTL_SEC,
        );
        const status = await putBytes(
          u,
          { uploadUrl: s.url, storageToken: s.token },
          bodies[i],
          "text/plain",
        );
        assert.equal(status, 200);
      });
      await pool(grants.slice(0, 250), 10, async (g) => {
        const res = await postJson(u.env, `/api/v1/submit/p/${form.id}`, {
          data: { doc: { path: g.path } },
        });
        assert.equal(res.status, 201, await res.text());
      });

      // Only attached bytes count: verified ones wait uncharged for a submission.
      const size = (gs: UploadGrant[]) => gs.reduce((n, g) => n + g.size_bytes, 0);
      assert.equal(await assertCounterExact(u, ws.id), size(grants.slice(0, 250)));

      u.skew.ms = 25 * 60 * 60_000;
      // A delayed job delivered for a referenced grant and for an orphan: both idempotent.
      await dispatch(u.deps, { type: "cleanup_upload", path: grants[0].path });
      await dispatch(u.deps, { type: "cleanup_upload", path: grants[999].path });
      assert.equal(await sweepUploads(u.deps), 749);
      assert.equal(await sweepUploads(u.deps), 0);

      let records = 0;
      for await (const e of u.deps.kv.list<UploadGrant>({ prefix: keys.uploadGrants() })) {
        assert.equal(e.value.state, "attached");
        records++;
      }
      assert.equal(records, 250);
      const pending = await Array.fromAsync(u.deps.kv.list({ prefix: keys.uploadsPending() }));
      assert.equal(pending.length, 0);
      let lost = 0;
      let orphans = 0;
      await pool(grants, 20, async (g, i) => {
        const [final, incoming] = await Promise.all([
          u.deps.storage.head(fileKey(g.path)),
          u.deps.storage.head(incomingKey(g.path)),
        ]);
        if (i < 250 && final?.size !== g.size_bytes) lost++;
        if (i >= 250 && final) orphans++;
        if (incoming) orphans++;
      });
      assert.equal(lost, 0);
      assert.equal(orphans, 0);
      if (driver === "local") assert.equal(await countFiles(u.deps.config.localStorageDir), 250);
      assert.equal(await assertCounterExact(u, ws.id), size(grants.slice(0, 250)));
    } finally {
      await u.close();
    }
  });
}

for (const driver of DRIVERS) {
  Deno.test(`cleanup_upload (${driver}) - grants without good bytes go when the URL expired`, async () => {
    const u = await uploadEnv(driver);
    try {
      const ws = await makeWorkspace(u.deps, "pro");
      const form = await makeForm(u.deps, ws, DOC_FORM);
      const text = new TextEncoder().encode("fine text\n");
      const html = new TextEncoder().encode("<html>bad\n");
      const mk = () => grantFor(u, form.id, "fld_doc", "d.txt", "text/plain", text.byteLength);
      const [never, good, bad, late] = [await mk(), await mk(), await mk(), await mk()];
      assert.equal(await putBytes(u, good, text, "text/plain"), 200);
      await putBytes(u, bad, html, "text/plain");
      assert.equal(await putBytes(u, late, text, "text/plain"), 200);
      const used = () => assertCounterExact(u, ws.id);
      // Nothing is charged for URLs or verified bytes; only a submission's attach charges.
      assert.equal(await used(), 0);
      const state = async (g: { path: string }) =>
        (await u.deps.kv.get<UploadGrant>(keys.uploadGrant(g.path))).value?.state ?? "gone";

      u.skew.ms = 14 * 60_000; // URL still valid: nothing is due yet
      assert.equal(await sweepUploads(u.deps), 0);
      u.skew.ms = 21 * 60_000;
      assert.equal(await sweepUploads(u.deps), 2);
      assert.equal(await state(never), "gone");
      assert.equal(await state(bad), "gone");
      assert.equal(await state(good), "verified");
      assert.equal(await used(), 0);
      const res = await postJson(u.env, `/api/v1/submit/p/${form.id}`, {
        data: { doc: { path: good.path } },
      });
      assert.equal(res.status, 201);
      await res.body?.cancel();

      u.skew.ms = 25 * 60 * 60_000;
      assert.equal(await sweepUploads(u.deps), 1);
      assert.equal(await state(late), "gone");
      assert.equal(await state(good), "attached");
      assert.equal(await u.deps.storage.head(fileKey(late.path)), null);
      assert.equal((await u.deps.storage.head(fileKey(good.path)))?.size, text.byteLength);
      assert.equal(await used(), text.byteLength);
      const left = await Array.fromAsync(u.deps.kv.list({ prefix: keys.uploadsPending() }));
      assert.equal(left.length, 0);
    } finally {
      await u.close();
    }
  });
}

for (const driver of DRIVERS) {
  Deno.test(`cleanup_upload (${driver}) - files of deleted submissions go without delete_files`, async () => {
    const u = await uploadEnv(driver);
    try {
      const ws = await makeWorkspace(u.deps, "pro");
      const form = await makeForm(u.deps, ws, DOC_FORM);
      const text = SAMPLES.text;
      const mk = () => grantFor(u, form.id, "fld_doc", "d.txt", "text/plain", text.byteLength);
      const [gone, kept] = [await mk(), await mk()];
      const ids: string[] = [];
      for (const g of [gone, kept]) {
        assert.equal(await putBytes(u, g, text, "text/plain"), 200);
        const r = await submitFiles(u, form.id, { doc: { path: g.path } });
        assert.equal(r.status, 201, JSON.stringify(r.body));
        ids.push(r.body.submission_id);
      }
      assert.equal(await assertCounterExact(u, ws.id), 2 * text.byteLength);
      const admin = await makeKey(u.deps, ws, { scopes: ["read", "admin"] });
      const del = await u.env.request(`/api/v1/server/forms/${form.id}/submissions`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
        body: JSON.stringify({ ids: [ids[0]] }),
      });
      assert.equal(del.status, 200);
      assert.equal((await del.json()).deleted, 1);
      // No queue listener here: `delete_files` is never delivered, as when it keeps failing.
      const size = async (path: string) => (await u.deps.storage.head(fileKey(path)))?.size;
      const state = async (path: string) =>
        (await u.deps.kv.get<UploadGrant>(keys.uploadGrant(path))).value?.state ?? "gone";

      u.skew.ms = 10 * 60_000; // an upload URL could still be in use: not yet
      assert.equal(await sweepUploads(u.deps), 0);
      assert.equal(await size(gone.path), text.byteLength);

      u.skew.ms = 21 * 60_000;
      assert.equal(await sweepUploads(u.deps), 1);
      assert.equal(await size(gone.path), undefined);
      assert.equal(await u.deps.storage.head(incomingKey(gone.path)), null);
      assert.equal(await state(gone.path), "gone");
      assert.equal(await state(kept.path), "attached");
      assert.equal(await size(kept.path), text.byteLength);
      assert.equal(await assertCounterExact(u, ws.id), text.byteLength);
      assert.equal(
        (await Array.fromAsync(u.deps.kv.list({ prefix: keys.uploadsPending() }))).length,
        0,
      );

      // A live submission's file survives any index entry, sweep or stray job.
      await u.deps.kv.set(keys.uploadPending(u.deps.now() - 1, kept.path), true);
      assert.equal(await sweepUploads(u.deps), 0);
      await dispatch(u.deps, { type: "delete_files", paths: [kept.path] });
      await dispatch(u.deps, { type: "cleanup_upload", path: kept.path });
      u.skew.ms = 30 * 24 * 60 * 60_000;
      assert.equal(await sweepUploads(u.deps), 0);
      assert.equal(await state(kept.path), "attached");
      assert.equal(await size(kept.path), text.byteLength);
      assert.equal(await storageUsed(u, ws.id), text.byteLength);
    } finally {
      await u.close();
    }
  });
}
