import assert from "node:assert/strict";
import { sweepUploads } from "@/lib/jobs/cleanup_upload.ts";
import { keys } from "@/lib/kv/keys.ts";
import type { FileRef } from "@/lib/schemas.ts";
import { fileKey, incomingKey, UPLOAD_URL_TTL_SEC } from "@/lib/uploads/grants.ts";
import { acceptDirectUpload } from "@/lib/uploads/direct.ts";
import { makeForm, makeWorkspace } from "@/tests/helpers.ts";
import {
  assertFileError,
  concat,
  DRIVERS,
  enc,
  FILES_FORM,
  type Grant,
  grantFor,
  putBytes,
  requestUpload,
  SAMPLES,
  storedSubmission,
  submitFiles,
  tamper,
  uploadEnv,
} from "@/tests/upload_fixtures.ts";

for (const driver of DRIVERS) {
  Deno.test(`uploads (${driver}) - upload URL, PUT, verification and attach`, async (t) => {
    const u = await uploadEnv(driver);
    try {
      const ws = await makeWorkspace(u.deps, "pro");
      const form = await makeForm(u.deps, ws, FILES_FORM);
      const other = await makeForm(u.deps, ws, FILES_FORM);

      await t.step("upload-url refuses what the field or plan does not allow", async () => {
        const ask = (b: Record<string, unknown>) =>
          requestUpload(u, form.id, { fileName: "a.pdf", sizeBytes: 10, ...b });
        const cases: [Record<string, unknown>, string][] = [
          [{ fieldId: "fld_name", contentType: "application/pdf" }, "file"],
          [{ fieldId: "fld_cv", contentType: "image/png" }, "allowedTypes"],
          [{ fieldId: "fld_photo", contentType: "image/svg+xml" }, "allowedTypes"],
          [{ fieldId: "fld_any", contentType: "text/html" }, "allowedTypes"],
          [{ fieldId: "fld_any", contentType: "not a type" }, "allowedTypes"],
          [
            { fieldId: "fld_cv", contentType: "application/pdf", sizeBytes: 1024 * 1024 + 1 },
            "maxSizeMB",
          ],
          [
            {
              fieldId: "fld_any",
              contentType: "application/pdf",
              sizeBytes: 100 * 1024 * 1024 + 1,
            },
            "maxSizeMB",
          ],
          [{ fieldId: "fld_cv", contentType: "application/pdf", sizeBytes: 0 }, "file"],
          [{ fieldId: "fld_nope", contentType: "application/pdf" }, "unknown_field"],
        ];
        for (const [body, type] of cases) {
          const res = await ask(body);
          const json = await res.json();
          assert.equal(res.status, 422, JSON.stringify(body));
          assert.equal(json.errors[0].type, type, JSON.stringify(body));
        }
        const bad = await ask({
          fieldId: "fld_cv",
          contentType: "application/pdf",
          sizeBytes: "9",
        });
        assert.equal(bad.status, 400);
        await bad.body?.cancel();
        assert.equal((await u.deps.kv.get(keys.storageUsed(ws.id))).value, null);
      });

      await t.step("a PDF goes up, and the stored reference comes from the grant", async () => {
        const g = await grantFor(
          u,
          form.id,
          "fld_cv",
          "CV 2026.pdf",
          "application/pdf",
          SAMPLES.pdf.byteLength,
        );
        assert.match(g.path, new RegExp(`^${form.id}/[A-Za-z0-9_-]+$`));
        assert.match(g.uploadToken, /^upl_/);
        assert.equal(Boolean(g.storageToken), driver === "local");
        assert.equal(await putBytes(u, g, SAMPLES.pdf, "application/pdf"), 200);
        const forged = {
          path: g.path,
          originalFilename: "x.exe",
          mimeType: "text/html",
          sizeBytes: 1,
        };
        const r = await submitFiles(u, form.id, { name: "Ada", cv: forged });
        assert.equal(r.status, 201, JSON.stringify(r.body));
        const sub = await storedSubmission(u, form.id, r.body.submission_id);
        assert.deepEqual(
          sub.fields.cv,
          {
            path: g.path,
            originalFilename: "CV 2026.pdf",
            mimeType: "application/pdf",
            sizeBytes: SAMPLES.pdf.byteLength,
          } satisfies FileRef,
        );
        assert.deepEqual(sub.files, [g.path]);
        assert.equal((await u.deps.storage.head(fileKey(g.path)))?.size, SAMPLES.pdf.byteLength);
        assert.equal(await u.deps.storage.head(incomingKey(g.path)), null);
        const again = await submitFiles(u, form.id, { name: "Eve", cv: { path: g.path } });
        assertFileError(again, "cv");
      });

      await t.step(
        "tampered, expired, other-path, oversize and retyped PUTs are refused",
        async () => {
          const size = SAMPLES.text.byteLength;
          const mk = () => grantFor(u, form.id, "fld_cv", "scores.csv", "text/csv", size);
          const refusals: [string, Grant, () => Promise<number>][] = [];
          const a = await mk();
          refusals.push(["tampered", a, () => putBytes(u, tamper(u, a), SAMPLES.text, "text/csv")]);
          const b = await mk();
          const c = await mk();
          const onOther = u.driver === "local"
            ? { ...c, storageToken: b.storageToken }
            : { ...b, uploadUrl: b.uploadUrl.replace(b.path, c.path) };
          refusals.push(["other path", c, () => putBytes(u, onOther, SAMPLES.text, "text/csv")]);
          // A link signed 16 minutes ago (the driver signs with the service clock).
          const d = await mk();
          u.skew.ms = -16 * 60_000;
          const stale = await u.deps.storage.signUpload(
            incomingKey(d.path),
            "text/csv",
            size,
            UPLOAD_URL_TTL_SEC,
          ).finally(() => u.skew.ms = 0);
          const old = { uploadUrl: stale.url, storageToken: stale.token };
          refusals.push(["expired", d, () => putBytes(u, old, SAMPLES.text, "text/csv")]);
          const e = await mk();
          const plusOne = concat(SAMPLES.text, enc("x"));
          refusals.push(["N+1 bytes", e, () => putBytes(u, e, plusOne, "text/csv")]);
          if (u.driver === "local") {
            refusals.push([
              "N+1 bytes, N declared",
              e,
              () => putBytes(u, e, plusOne, "text/csv", size),
            ]);
          }
          const f = await mk();
          refusals.push(["other type", f, () => putBytes(u, f, SAMPLES.text, "text/html")]);
          for (const [name, g, put] of refusals) {
            const status = await put();
            assert.ok(status >= 400 && status < 500, `${name}: ${status}`);
            assert.equal(await u.deps.storage.head(incomingKey(g.path)), null, name);
            assertFileError(await submitFiles(u, form.id, { cv: { path: g.path } }), "cv");
          }
          // The genuine client can still upload after all of that.
          assert.equal(await putBytes(u, e, SAMPLES.text, "text/csv"), 200);
          assert.equal((await submitFiles(u, form.id, { cv: { path: e.path } })).status, 201);
        },
      );

      await t.step("a re-PUT after verification never changes the attached file", async () => {
        const size = SAMPLES.text.byteLength;
        const g = await grantFor(u, form.id, "fld_cv", "a.csv", "text/csv", size);
        assert.equal(await putBytes(u, g, SAMPLES.text, "text/csv"), 200);
        assert.equal((await submitFiles(u, form.id, { cv: { path: g.path } })).status, 201);
        const evil = enc("<html>".padEnd(size, "x"));
        const status = await putBytes(u, g, evil, "text/csv");
        // Local refuses a second PUT; S3 takes it, but only into `incoming/`.
        assert.equal(status, driver === "local" ? 409 : 200);
        const kept = await u.deps.storage.readStart(fileKey(g.path), size);
        assert.deepEqual(kept, SAMPLES.text);
        u.skew.ms = 25 * 60 * 60_000;
        try {
          await sweepUploads(u.deps);
        } finally {
          u.skew.ms = 0;
        }
        assert.equal(await u.deps.storage.head(incomingKey(g.path)), null);
        assert.deepEqual(await u.deps.storage.readStart(fileKey(g.path), size), SAMPLES.text);
      });

      await t.step(
        "acceptDirectUpload applies the same checks to server-received files",
        async () => {
          const photo = form.fields.find((f) => f.name === "photo")!;
          const ref = await acceptDirectUpload(
            u.deps,
            form,
            photo,
            "me.png",
            "image/png",
            SAMPLES.png,
          );
          assert.equal(ref.mimeType, "image/png");
          assert.equal(ref.sizeBytes, SAMPLES.png.byteLength);
          assert.equal((await submitFiles(u, form.id, { photo: ref })).status, 201);
          await assert.rejects(
            acceptDirectUpload(u.deps, form, photo, "x.png", "image/png", enc("<?php ?>")),
            (e: Error & { status?: number }) => e.status === 422,
          );
          await assert.rejects(
            acceptDirectUpload(u.deps, form, photo, "x.svg", "image/svg+xml", enc("<svg/>")),
            (e: Error & { status?: number }) => e.status === 422,
          );
        },
      );

      await t.step("a path must be a verified grant of this form and field", async () => {
        const g = await grantFor(
          u,
          form.id,
          "fld_photo",
          "p.png",
          "image/png",
          SAMPLES.png.byteLength,
        );
        assertFileError(await submitFiles(u, form.id, { photo: { path: g.path } }), "photo");
        assert.equal(await putBytes(u, g, SAMPLES.png, "image/png"), 200);
        assertFileError(await submitFiles(u, other.id, { photo: { path: g.path } }), "photo");
        assertFileError(await submitFiles(u, form.id, { any: { path: g.path } }), "any");
        assertFileError(
          await submitFiles(u, form.id, { photo: { path: "../../etc/passwd" } }),
          "photo",
        );
        assertFileError(
          await submitFiles(u, form.id, { photo: { path: `${form.id}/nope` } }),
          "photo",
        );
        const ok = await submitFiles(u, form.id, { photo: { path: g.path } });
        assert.equal(ok.status, 201);
      });
    } finally {
      await u.close();
    }
  });
}

Deno.test("uploads - upload URL is rate limited per IP", async () => {
  const u = await uploadEnv("local", { RATE_LIMITS: JSON.stringify({ upload_url: 10 }) });
  try {
    const ws = await makeWorkspace(u.deps, "starter");
    const form = await makeForm(u.deps, ws, FILES_FORM);
    const body = {
      fieldId: "fld_cv",
      fileName: "a.pdf",
      contentType: "application/pdf",
      sizeBytes: 5,
    };
    for (let i = 0; i < 10; i++) {
      const res = await requestUpload(u, form.id, body, "192.0.2.1");
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }
    const limited = await requestUpload(u, form.id, body, "192.0.2.1");
    assert.equal(limited.status, 429);
    assert.equal((await limited.json()).code, "rate_limited");
    const otherIp = await requestUpload(u, form.id, body, "192.0.2.2");
    assert.equal(otherIp.status, 200);
    await otherIp.body?.cancel();
  } finally {
    await u.close();
  }
});
