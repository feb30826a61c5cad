import assert from "node:assert/strict";
import { dispatch } from "@/lib/jobs/mod.ts";
import { keys } from "@/lib/kv/keys.ts";
import { u64Value } from "@/lib/kv/kv.ts";
import { fileKey, type UploadGrant } from "@/lib/uploads/grants.ts";
import { makeForm, makeKey, makeWorkspace } from "@/tests/helpers.ts";
import {
  DRIVERS,
  FILES_FORM,
  getUrl,
  grantFor,
  putBytes,
  SAMPLES,
  submitFiles,
  tamperUrl,
  uploadEnv,
} from "@/tests/upload_fixtures.ts";

for (const driver of DRIVERS) {
  Deno.test(`uploads (${driver}) - downloads and deletion`, async (t) => {
    const u = await uploadEnv(driver);
    try {
      const ws = await makeWorkspace(u.deps, "pro");
      const form = await makeForm(u.deps, ws, FILES_FORM);
      const other = await makeForm(u.deps, ws, FILES_FORM);

      await t.step("a download's extension is its verified type's, never .html", async () => {
        const key = await makeKey(u.deps, ws);
        for (
          const [name, type, bytes, saved] of [
            ["invoice.html", "application/pdf", SAMPLES.pdf, "invoice.pdf"],
            ["scan.svg", "text/plain", SAMPLES.text, "scan.txt"],
            ["run.hta", "text/csv", SAMPLES.text, "run.csv"],
            ["notes", "text/plain", SAMPLES.text, "notes.txt"],
            ["Report.PDF", "application/pdf", SAMPLES.pdf, "Report.PDF"],
          ] as const
        ) {
          const g = await grantFor(u, form.id, "fld_cv", name, type, bytes.byteLength);
          assert.equal(await putBytes(u, g, bytes, type), 200, name);
          assert.equal((await submitFiles(u, form.id, { cv: { path: g.path } })).status, 201);
          const res = await u.env.request(
            `/api/v1/server/forms/${form.id}/files/download?path=${encodeURIComponent(g.path)}`,
            { headers: { authorization: `Bearer ${key}` } },
          );
          const file = await getUrl(u, (await res.json()).url);
          assert.equal(file.status, 200, name);
          assert.equal(
            file.headers.get("content-disposition"),
            `attachment; filename="${saved}"`,
            name,
          );
          await file.body?.cancel();
        }
      });

      await t.step("downloads: signed link for the owner; 404 for anyone else", async () => {
        const g = await grantFor(
          u,
          form.id,
          "fld_cv",
          "report final.pdf",
          "application/pdf",
          SAMPLES.pdf.byteLength,
        );
        assert.equal(await putBytes(u, g, SAMPLES.pdf, "application/pdf"), 200);
        const r = await submitFiles(u, form.id, { cv: { path: g.path } });
        assert.equal(r.status, 201);
        const key = await makeKey(u.deps, ws);
        const dl = (k: string, formId = form.id, path = g.path) =>
          u.env.request(
            `/api/v1/server/forms/${formId}/files/download?path=${encodeURIComponent(path)}`,
            { headers: { authorization: `Bearer ${k}` } },
          );
        const res = await dl(key);
        assert.equal(res.status, 200);
        const body = await res.json();
        assert.ok(Date.parse(body.expires_at) > Date.now());
        const file = await getUrl(u, body.url);
        assert.equal(file.status, 200);
        assert.match(
          file.headers.get("content-disposition") ?? "",
          /^attachment; filename="report final.pdf"/,
        );
        assert.equal(file.headers.get("content-type"), "application/pdf");
        if (driver === "local") assert.equal(file.headers.get("x-content-type-options"), "nosniff");
        assert.deepEqual(new Uint8Array(await file.arrayBuffer()), SAMPLES.pdf);
        const forged = await getUrl(u, tamperUrl(body.url));
        assert.ok(forged.status === 404 || forged.status === 403, String(forged.status));
        await forged.body?.cancel();

        const ws2 = await makeWorkspace(u.deps, "starter");
        const form2 = await makeForm(u.deps, ws2, FILES_FORM);
        const key2 = await makeKey(u.deps, ws2);
        const testKey = await makeKey(u.deps, ws, { type: "test" });
        const unattached = await grantFor(
          u,
          form.id,
          "fld_cv",
          "x.pdf",
          "application/pdf",
          SAMPLES.pdf.byteLength,
        );
        await putBytes(u, unattached, SAMPLES.pdf, "application/pdf");
        for (
          const res of [
            await dl(key2),
            await dl(key2, form2.id),
            await dl(testKey),
            await dl(key, other.id),
            await dl(key, form.id, unattached.path),
            await dl(key, form.id, "../../etc/passwd"),
          ]
        ) {
          assert.equal(res.status, 404);
          await res.body?.cancel();
        }
      });

      await t.step("deleting a submission removes its files; a live one keeps them", async () => {
        const size = SAMPLES.pdf.byteLength;
        const used = async () => u64Value((await u.deps.kv.get(keys.storageUsed(ws.id))).value);
        const g = await grantFor(u, form.id, "fld_cv", "d.pdf", "application/pdf", size);
        await putBytes(u, g, SAMPLES.pdf, "application/pdf");
        const keep = await grantFor(u, form.id, "fld_cv", "k.pdf", "application/pdf", size);
        await putBytes(u, keep, SAMPLES.pdf, "application/pdf");
        const r = await submitFiles(u, form.id, { cv: { path: g.path } });
        assert.equal((await submitFiles(u, form.id, { cv: { path: keep.path } })).status, 201);
        const before = await used();
        const admin = await makeKey(u.deps, ws, { scopes: ["read", "admin"] });
        const del = await u.env.request(`/api/v1/server/forms/${form.id}/submissions`, {
          method: "DELETE",
          headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
          body: JSON.stringify({ ids: [r.body.submission_id] }),
        });
        assert.equal(del.status, 200);
        await del.body?.cancel();
        await dispatch(u.deps, { type: "delete_files", paths: [g.path, keep.path] });
        assert.equal(await u.deps.storage.head(fileKey(g.path)), null);
        assert.equal((await u.deps.kv.get(keys.uploadGrant(g.path))).value, null);
        assert.equal(await used(), before - size);
        assert.equal((await u.deps.storage.head(fileKey(keep.path)))?.size, size);
        const kept = (await u.deps.kv.get<UploadGrant>(keys.uploadGrant(keep.path))).value;
        assert.equal(kept?.state, "attached");
      });
    } finally {
      await u.close();
    }
  });
}
