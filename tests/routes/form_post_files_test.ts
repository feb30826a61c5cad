import assert from "node:assert/strict";
import { keys } from "../../lib/kv_keys.ts";
import type { Submission } from "../../lib/schemas.ts";
import { makeForm, makeWorkspace, recount, testEnv } from "../helpers.ts";
import { FILES_FORM, SAMPLES } from "../upload_fixtures.ts";

const BASE = "http://forms.test";

async function location(res: Response): Promise<URL> {
  await res.body?.cancel();
  assert.equal(res.status, 303);
  return new URL(res.headers.get("location")!, BASE);
}

Deno.test("form post - multipart with files", async (t) => {
  const env = await testEnv({ BASE_URL: BASE, RATE_LIMITS: JSON.stringify({ submit: 100_000 }) });
  const form = await makeForm(env.deps, await makeWorkspace(env.deps), FILES_FORM);
  const send = (parts: [string, string | Blob, string?][]) => {
    const fd = new FormData();
    for (const [k, v, name] of parts) {
      if (typeof v === "string") fd.append(k, v);
      else fd.append(k, v, name);
    }
    return env.request(`/api/v1/submit/p/${form.id}`, {
      method: "POST",
      body: fd,
      headers: { accept: "text/html" },
    });
  };
  try {
    await t.step("a file is verified, stored and referenced", async () => {
      const loc = await location(
        await send([
          ["name", "Ada"],
          ["cv", new Blob([SAMPLES.pdf], { type: "application/pdf" }), "cv.pdf"],
          ["any", new Blob([]), ""], // an empty file input
        ]),
      );
      const id = loc.searchParams.get("submission_id")!;
      const sub = (await env.deps.kv.get<Submission>(keys.submission(form.id, id))).value!;
      const ref = sub.fields.cv as Record<string, unknown>;
      assert.equal(ref.originalFilename, "cv.pdf");
      assert.equal(ref.mimeType, "application/pdf");
      assert.equal(ref.sizeBytes, SAMPLES.pdf.byteLength);
      assert.equal(sub.files.length, 1);
      assert.equal(sub.fields.any, undefined);
    });
    await t.step("the same key with a file twice stores once (Back and resend)", async () => {
      const before = await recount(env.deps, form.id);
      const parts: [string, string | Blob, string?][] = [
        ["name", "Ada"],
        ["_idempotency_key", "hf_files"],
        ["cv", new Blob([SAMPLES.text], { type: "text/csv" }), "scores.csv"],
      ];
      const [a, b] = await Promise.all([send(parts), send(parts)]);
      const ids = [await location(a), await location(b), await location(await send(parts))]
        .map((l) => l.searchParams.get("submission_id"));
      assert.equal(new Set(ids).size, 1);
      assert.equal(await recount(env.deps, form.id), before + 1);
    });
    await t.step("a mismatched type is refused and nothing is stored", async () => {
      const before = await recount(env.deps, form.id);
      const res = await send([
        ["name", "Eve"],
        // Declared PDF, but the bytes are a PNG image.
        ["cv", new Blob([SAMPLES.png], { type: "application/pdf" }), "cv.pdf"],
      ]);
      assert.equal(res.status, 422);
      const html = await res.text();
      assert.match(html, /id="f-fld_cv-error"[^>]*>[^<]+/);
      assert.match(html, /value="Eve"/);
      assert.equal(await recount(env.deps, form.id), before);
    });
    await t.step("a disallowed declared type is refused before storage", async () => {
      const res = await send([["cv", new Blob([SAMPLES.png], { type: "image/png" }), "a.png"]]);
      assert.equal(res.status, 422);
      await res.body?.cancel();
    });
    await t.step("a file for a text field is a 400", async () => {
      const res = await send([["name", new Blob(["x"], { type: "text/plain" }), "n.txt"]]);
      assert.equal(res.status, 400);
      await res.body?.cancel();
    });
  } finally {
    env.close();
    await Deno.remove(env.deps.config.localStorageDir, { recursive: true }).catch(() => {});
  }
});
