import { readSubmission } from "@/lib/submissions/records.ts";
import assert from "node:assert/strict";
import { keys } from "@/lib/kv/keys.ts";
import type { FormDefinition, Submission } from "@/lib/schemas.ts";
import { makeForm, makeWorkspace, recount, type TestEnv, testEnv } from "@/tests/helpers.ts";
import { FILES_FORM, SAMPLES } from "@/tests/upload_fixtures.ts";
import { newPageKey } from "@/routes/f/_form_page.tsx";

const BASE = "http://forms.test";

async function location(res: Response): Promise<URL> {
  await res.body?.cancel();
  assert.equal(res.status, 303);
  return new URL(res.headers.get("location")!, BASE);
}

type Part = [string, string | Blob, string?];

function sender(env: TestEnv, formId: string) {
  return (parts: Part[], headers: Record<string, string> = {}) => {
    const fd = new FormData();
    for (const [k, v, name] of parts) {
      if (typeof v === "string") fd.append(k, v);
      else fd.append(k, v, name);
    }
    return env.request(`/api/v1/submit/p/${formId}`, {
      method: "POST",
      body: fd,
      headers: { accept: "text/html", ...headers },
    });
  };
}

/** Upload grants in KV plus objects in local storage: 0 means no file was written. */
async function storedFiles(env: TestEnv): Promise<number> {
  let n = 0;
  for await (const _ of env.deps.kv.list({ prefix: keys.uploadGrants() })) n++;
  const walk = async (dir: string): Promise<void> => {
    for await (const e of Deno.readDir(dir)) {
      if (e.isDirectory) await walk(`${dir}/${e.name}`);
      else n++;
    }
  };
  await walk(env.deps.config.localStorageDir).catch((err) => {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  });
  return n;
}

const pdf = (bytes: Uint8Array<ArrayBuffer> = SAMPLES.pdf) =>
  new Blob([bytes], { type: "application/pdf" });

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
      const sub = (await readSubmission(env.deps.kv, form.id, id))!;
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
        ["_idempotency_key", newPageKey()],
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

Deno.test("form post - multipart idempotency compares what was posted", async (t) => {
  const env = await testEnv({ BASE_URL: BASE, RATE_LIMITS: JSON.stringify({ submit: 100_000 }) });
  const form = await makeForm(env.deps, await makeWorkspace(env.deps), FILES_FORM);
  const send = sender(env, form.id);
  const k1 = newPageKey();
  try {
    let first = "";
    await t.step("same key, same text and same file: replays", async () => {
      const parts: Part[] = [["name", "Ada"], ["_idempotency_key", k1], [
        "cv",
        pdf(),
        "a.pdf",
      ]];
      first = (await location(await send(parts))).searchParams.get("submission_id")!;
      const again = await location(await send(parts));
      assert.equal(again.searchParams.get("submission_id"), first);
      assert.equal(await recount(env.deps, form.id), 1);
    });
    await t.step("same key, other text: 409 page with the values and a fresh key", async () => {
      const res = await send([["name", "Bob"], ["_idempotency_key", k1], [
        "cv",
        pdf(),
        "a.pdf",
      ]]);
      assert.equal(res.status, 409);
      const html = await res.text();
      assert.match(
        html,
        /already sent a response with different answers[^<]*Choose your files again/,
      );
      assert.match(html, /value="Bob"/);
      const key = /name="_idempotency_key" value="([^"]+)"/.exec(html)?.[1];
      assert.ok(key && key !== k1, String(key));
      assert.equal(await recount(env.deps, form.id), 1);
      const loc = await location(
        await send([["name", "Bob"], ["_idempotency_key", key], ["cv", pdf(), "a.pdf"]]),
      );
      assert.notEqual(loc.searchParams.get("submission_id"), first);
      const sub = (await env.deps.kv.get<Submission>(
        keys.submission(form.id, loc.searchParams.get("submission_id")!),
      )).value!;
      assert.equal(sub.fields.name, "Bob");
      assert.equal(await recount(env.deps, form.id), 2);
    });
    await t.step("same key and text, another file (name or size): 409", async () => {
      const other = new Uint8Array([...SAMPLES.pdf, 10]);
      for (const [blob, name] of [[pdf(), "b.pdf"], [pdf(other), "a.pdf"]] as const) {
        const res = await send([["name", "Ada"], ["_idempotency_key", k1], [
          "cv",
          blob,
          name,
        ]]);
        assert.equal(res.status, 409);
        await res.body?.cancel();
      }
      assert.equal(await recount(env.deps, form.id), 2);
    });
  } finally {
    env.close();
    await Deno.remove(env.deps.config.localStorageDir, { recursive: true }).catch(() => {});
  }
});

/** One file field capped at 1 MB: a 2 MB file is far over everything the post may carry. */
const SMALL_FILE_FORM: FormDefinition = {
  name: "Small file",
  fields: [
    { id: "fld_name", name: "name", type: "text" },
    { id: "fld_email", name: "email", type: "email" },
    { id: "fld_cv", name: "cv", type: "file", allowedTypes: ["application/pdf"], maxSizeMB: 1 },
  ],
};

Deno.test("form post - multipart size limits keep the typed text", async (t) => {
  const env = await testEnv({ BASE_URL: BASE, RATE_LIMITS: JSON.stringify({ submit: 100_000 }) });
  const form = await makeForm(env.deps, await makeWorkspace(env.deps), SMALL_FILE_FORM);
  const send = sender(env, form.id);
  try {
    await t.step("a 2 MB file on a 1 MB field: 422 on the field, values kept", async () => {
      const big = new Uint8Array(2 * 1024 * 1024);
      big.set(SAMPLES.pdf);
      const res = await send([
        ["name", "Ada"],
        ["email", "ada@example.com"],
        ["_idempotency_key", newPageKey()],
        ["cv", pdf(big), "big.pdf"],
      ]);
      assert.equal(res.status, 422);
      const html = await res.text();
      assert.match(html, /value="Ada"/);
      assert.match(html, /value="ada@example.com"/);
      assert.match(html, /id="f-fld_cv-error"[^>]*>[^<]*up to 1 MB/);
      assert.equal(await storedFiles(env), 0);
      assert.equal(await recount(env.deps, form.id), 0);
    });
    await t.step("a body over the hard cap is still a 413", async () => {
      const boundary = "cap-test";
      const head = new TextEncoder().encode(
        `--${boundary}\r\nContent-Disposition: form-data; name="cv"; filename="x.pdf"\r\n` +
          "Content-Type: application/pdf\r\n\r\n",
      );
      const chunk = new Uint8Array(1024 * 1024);
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(ctrl) {
          // 101 MiB of file bytes, never closed by a boundary: the cap must stop it.
          if (sent === 0) ctrl.enqueue(head);
          if (sent++ > 101) ctrl.close();
          else ctrl.enqueue(chunk);
        },
      });
      const res = await env.request(`/api/v1/submit/p/${form.id}`, {
        method: "POST",
        body,
        headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
      });
      assert.equal(res.status, 413);
      assert.equal((await res.json()).code, "payload_too_large");
    });
  } finally {
    env.close();
    await Deno.remove(env.deps.config.localStorageDir, { recursive: true }).catch(() => {});
  }
});

Deno.test("form post - a refused multipart post writes no file", async (t) => {
  const env = await testEnv({ BASE_URL: BASE, RATE_LIMITS: JSON.stringify({ submit: 100_000 }) });
  const ws = await makeWorkspace(env.deps);
  const def = (extra: Partial<FormDefinition>): FormDefinition => ({ ...FILES_FORM, ...extra });
  try {
    await t.step("a filled honeypot: 403 and nothing in storage", async () => {
      const form = await makeForm(env.deps, ws, def({ honeypot: "_gotcha" }));
      const res = await sender(env, form.id)([
        ["name", "Bot"],
        ["_gotcha", "http://spam.example"],
        ["cv", pdf(), "cv.pdf"],
      ]);
      assert.equal(res.status, 403);
      assert.match(await res.text(), /flagged as spam/);
      assert.equal(await storedFiles(env), 0);
    });
    await t.step("a foreign Origin: 403 and nothing in storage", async () => {
      const form = await makeForm(env.deps, ws, def({ allowed_origins: ["https://ok.example"] }));
      const res = await sender(env, form.id)([["name", "Eve"], ["cv", pdf(), "cv.pdf"]], {
        origin: "https://evil.example",
      });
      assert.equal(res.status, 403);
      await res.body?.cancel();
      assert.equal(await storedFiles(env), 0);
    });
    await t.step("no CAPTCHA token on a CAPTCHA form: 403 and nothing in storage", async () => {
      const form = await makeForm(
        env.deps,
        ws,
        def({ captcha: { provider: "turnstile", siteKey: "site", secret: "secret" } }),
      );
      const res = await sender(env, form.id)([["name", "Ada"], ["cv", pdf(), "cv.pdf"]]);
      assert.equal(res.status, 403);
      assert.match(await res.text(), /A CAPTCHA token is required/);
      assert.equal(await storedFiles(env), 0);
      assert.equal(await recount(env.deps, form.id), 0);
    });
  } finally {
    env.close();
    await Deno.remove(env.deps.config.localStorageDir, { recursive: true }).catch(() => {});
  }
});
