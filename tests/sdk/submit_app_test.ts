/**
 * The client's submit against the real app (in-memory KV): a lost 201 retried under the
 * same key stores one submission, 422 becomes field errors, `schema_changed` refetches
 * and resubmits once when the data still passes, and files go through the signed upload.
 */
import assert from "node:assert/strict";
import { Formwell, type FormwellError, type UploadProgress } from "@/sdk/mod.ts";
import { updateForm } from "@/lib/forms/forms.ts";
import { keys } from "@/lib/kv/keys.ts";
import type { Submission } from "@/lib/schemas.ts";
import { CONTACT_FORM, makeForm, makeWorkspace, recount, testEnv } from "@/tests/helpers.ts";
import { SAMPLES } from "@/tests/upload_fixtures.ts";
import { appFetch } from "./app_fetch.ts";

const FAST = { attempts: 3, baseMs: 1, capMs: 2 };

Deno.test("sdk submit (real app) - a lost answer is retried under the same key: one submission", async () => {
  const env = await testEnv();
  const form = await makeForm(env.deps, await makeWorkspace(env.deps));
  const seen: { key: string | null; replayed: string | null }[] = [];
  let dropped = false;
  const fetch = appFetch(env, async (req, answer) => {
    const res = await answer();
    if (req.url.includes("/submit/p/")) {
      seen.push({
        key: req.headers.get("idempotency-key"),
        replayed: res.headers.get("idempotent-replayed"),
      });
      if (!dropped) {
        dropped = true;
        throw new TypeError("connection reset after the service answered");
      }
    }
    return res;
  });
  const fw = new Formwell({
    baseUrl: "http://localhost",
    outbox: false,
    runtime: { fetch },
    retry: FAST,
  });
  const result = await fw.submit(form.id, {
    name: "Ada",
    email: "ada@example.com",
  });
  assert.equal(seen.length, 2);
  assert.equal(seen[0].key, seen[1].key);
  assert.equal(
    seen[1].replayed,
    "true",
    "the second attempt was answered from the first",
  );
  assert.equal(await recount(env.deps, form.id), 1);
  const stored = await env.deps.kv.get<Submission>(
    keys.submission(form.id, result.submission_id),
  );
  assert.equal(stored.value?.number, result.submission_number);
  env.close();
});

Deno.test("sdk submit (real app) - 422 is thrown with the field errors", async () => {
  const env = await testEnv();
  const form = await makeForm(env.deps, await makeWorkspace(env.deps));
  const fw = new Formwell({
    baseUrl: "http://localhost",
    outbox: false,
    runtime: { fetch: appFetch(env) },
  });
  await assert.rejects(
    fw.submit(form.id, { name: "Ada", email: "nope", colour: "red" }),
    (e: FormwellError) => {
      assert.equal(e.status, 422);
      assert.equal(e.code, "validation_failed");
      assert.deepEqual(e.errors.map((x) => [x.field, x.type]).sort(), [
        ["colour", "unknown_field"],
        ["email", "email"],
      ]);
      assert.match(e.requestId ?? "", /^req_/);
      return true;
    },
  );
  assert.equal(await recount(env.deps, form.id), 0);
  env.close();
});

Deno.test("sdk submit (real app) - schema_changed: refetch, resubmit once when still valid", async (t) => {
  const env = await testEnv();
  const form = await makeForm(env.deps, await makeWorkspace(env.deps));
  const versions: unknown[] = [];
  const fetch = appFetch(env, async (req, answer) => {
    if (req.url.includes("/submit/p/")) {
      versions.push((await req.clone().json()).schema_version);
    }
    return await answer();
  });
  const fw = new Formwell({
    baseUrl: "http://localhost",
    outbox: false,
    runtime: { fetch },
    retry: FAST,
  });
  assert.equal((await fw.schema(form.id)).form.schema_version, 1);

  await t.step(
    "an optional field added: the same data is resubmitted and stored once",
    async () => {
      const v2 = await updateForm(env.deps, form.id, {
        ...CONTACT_FORM,
        fields: [...CONTACT_FORM.fields!, { name: "company", type: "text" }],
      });
      assert.equal(v2.schema_version, 2);
      const r = await fw.submit(form.id, {
        name: "Ada",
        email: "ada@example.com",
      });
      assert.deepEqual(versions, [1, 2]);
      assert.equal(r.submission_number, 1);
      assert.equal(await recount(env.deps, form.id), 1);
    },
  );

  await t.step(
    "a required field added that the data lacks: 409 with the problems, nothing sent",
    async () => {
      versions.length = 0;
      await updateForm(env.deps, form.id, {
        ...CONTACT_FORM,
        fields: [...CONTACT_FORM.fields!, {
          name: "phone",
          label: "Phone",
          type: "tel",
          required: true,
        }],
      });
      await assert.rejects(
        fw.submit(form.id, { name: "Bo", email: "bo@example.com" }),
        (e: FormwellError) => {
          assert.equal(e.status, 409);
          assert.equal(e.code, "schema_changed");
          assert.deepEqual(e.errors.map((x) => [x.field, x.type]), [[
            "phone",
            "required",
          ]]);
          assert.ok(e.errors[0].fieldId, "the new schema's field id");
          return true;
        },
      );
      assert.deepEqual(versions, [2], "no resubmit");
      assert.equal(await recount(env.deps, form.id), 1);
    },
  );
  env.close();
});

Deno.test("sdk submit (real app) - files: signed upload with the storage token, reference, progress", async () => {
  const env = await testEnv();
  const form = await makeForm(env.deps, await makeWorkspace(env.deps), {
    name: "Jobs",
    fields: [
      { name: "name", type: "text", required: true },
      {
        name: "cv",
        type: "file",
        allowedTypes: ["application/pdf"],
        required: true,
      },
    ],
  });
  const puts: string[] = [];
  const fetch = appFetch(env, async (req, answer) => {
    if (req.method === "PUT") puts.push(req.headers.get("authorization") ?? "");
    return await answer();
  });
  const fw = new Formwell({
    baseUrl: "http://localhost",
    outbox: false,
    runtime: { fetch },
  });
  const progress: UploadProgress[] = [];
  const cv = new File([SAMPLES.pdf], "cv.pdf", { type: "application/pdf" });
  const r = await fw.submit(form.id, { name: "Ada", cv }, {
    onProgress: (p) => progress.push(p),
  });
  assert.equal(puts.length, 1);
  assert.match(puts[0], /^Bearer \S+/);
  const stored = (await env.deps.kv.get<Submission>(
    keys.submission(form.id, r.submission_id),
  ))
    .value!;
  const ref = stored.fields.cv as Record<string, unknown>;
  assert.equal(ref.originalFilename, "cv.pdf");
  assert.equal(ref.mimeType, "application/pdf");
  assert.equal(ref.sizeBytes, SAMPLES.pdf.byteLength);
  assert.deepEqual(stored.files, [ref.path]);
  assert.deepEqual(progress.at(-1), {
    field: "cv",
    loaded: cv.size,
    total: cv.size,
  });
  env.close();
});
