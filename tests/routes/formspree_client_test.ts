/**
 * Formspree's own client, `@formspree/core`, works unchanged against a real Formwell server
 * with `endpoint` set: successes (an object, FormData, a file), field errors with Formspree's
 * codes, and form errors. Also the endpoint's wire answers, its CORS, the no-JS behaviour,
 * and that Formwell's own submit still refuses fields at the top level, naming both routes.
 */
import assert from "node:assert/strict";
import { createClient, isSubmissionError } from "@formspree/core";
import {
  makeForm,
  makeWorkspace,
  postJson,
  recount,
  type TestEnv,
  testEnv,
} from "@/tests/helpers.ts";
import { readSubmission } from "@/lib/submissions/records.ts";
import type { FormDefinition } from "@/lib/schemas.ts";

const FORM: FormDefinition = {
  name: "Contact",
  fields: [
    { id: "fld_name", name: "name", type: "text", required: true },
    { id: "fld_email", name: "email", type: "email", required: true },
    { id: "fld_age", name: "age", type: "integer" },
    { id: "fld_cv", name: "cv", type: "file", allowedTypes: ["application/pdf"] },
  ],
};

/** A real server over the test app on a free port. */
function serve(env: TestEnv): { base: string; stop: () => Promise<void> } {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req, info) => env.app.fetch(req, { remoteAddr: info.remoteAddr }),
  );
  return { base: `http://127.0.0.1:${server.addr.port}`, stop: () => server.shutdown() };
}

Deno.test("formspree - @formspree/core submits to Formwell with endpoint set", async (t) => {
  const env = await testEnv();
  const { base, stop } = serve(env);
  try {
    const ws = await makeWorkspace(env.deps, "business");
    const form = await makeForm(env.deps, ws, FORM);
    const client = createClient();
    const opts = { endpoint: base };

    await t.step("an object: success, with the next page, stored once", async () => {
      const res = await client.submitForm(form.id, {
        name: "Ada",
        email: "ada@example.com",
        age: 36,
      }, opts);
      assert.equal(res.kind, "success", JSON.stringify(res));
      if (res.kind !== "success") return;
      const thanks = `${env.deps.config.baseUrl}/f/${form.id}/thanks?submission_id=sub_`;
      assert.ok(res.next.startsWith(thanks), res.next);
      assert.equal(await recount(env.deps, form.id), 1);
      const id = new URL(res.next).searchParams.get("submission_id")!;
      const stored = await readSubmission(env.deps.kv, form.id, id);
      assert.deepEqual(stored?.fields, { name: "Ada", email: "ada@example.com", age: 36 });
    });

    await t.step("field errors carry Formspree's codes", async () => {
      const res = await client.submitForm(form.id, { name: "", email: "nope", age: "x" }, opts);
      assert.ok(isSubmissionError(res));
      assert.equal(res.getFieldErrors("name")[0].code, "REQUIRED_FIELD_EMPTY");
      assert.equal(res.getFieldErrors("email")[0].code, "TYPE_EMAIL");
      assert.equal(res.getFieldErrors("age")[0].code, "TYPE_NUMERIC");
      const missing = await client.submitForm(
        form.id,
        { email: "a@example.com" } as Record<string, string>,
        opts,
      );
      assert.ok(isSubmissionError(missing));
      assert.equal(missing.getFieldErrors("name")[0].code, "REQUIRED_FIELD_MISSING");
      assert.equal(await recount(env.deps, form.id), 1);
    });

    await t.step("FormData, and FormData with a file: success, stored", async () => {
      const data = new FormData();
      data.set("name", "Grace");
      data.set("email", "grace@example.com");
      const res = await client.submitForm(form.id, data, opts);
      assert.equal(res.kind, "success", JSON.stringify(res));
      const withFile = new FormData();
      withFile.set("name", "Linus");
      withFile.set("email", "linus@example.com");
      const pdf = new TextEncoder().encode("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n");
      withFile.set("cv", new File([pdf], "cv.pdf", { type: "application/pdf" }));
      const filed = await client.submitForm(form.id, withFile, opts);
      assert.equal(filed.kind, "success", JSON.stringify(filed));
      if (filed.kind !== "success") return;
      const id = new URL(filed.next).searchParams.get("submission_id")!;
      const stored = await readSubmission(env.deps.kv, form.id, id);
      const cv = stored?.fields.cv as { path: string; originalFilename: string };
      assert.equal(cv.originalFilename, "cv.pdf");
      assert.equal(await recount(env.deps, form.id), 3);
    });

    await t.step("form errors: unknown form, closed form, empty submission", async () => {
      const unknown = await client.submitForm("fNope000000000", { name: "A" }, opts);
      assert.ok(isSubmissionError(unknown));
      assert.equal(unknown.getFormErrors()[0].code, "FORM_NOT_FOUND");
      const empty = await client.submitForm(form.id, {}, opts);
      assert.ok(isSubmissionError(empty));
      assert.equal(empty.getFormErrors()[0].code, "EMPTY");
      const closed = await makeForm(env.deps, ws, { ...FORM, accepting: false });
      const inactive = await client.submitForm(closed.id, { name: "A", email: "a@b.co" }, opts);
      assert.ok(isSubmissionError(inactive));
      assert.equal(inactive.getFormErrors()[0].code, "INACTIVE");
    });
  } finally {
    await stop();
    env.close();
  }
});

Deno.test("formspree - the endpoint's answers, CORS and no-JS posts", async (t) => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws, {
      ...FORM,
      allowed_origins: ["https://site.example"],
    });

    await t.step("JSON answers: 200 {ok, next}; 422 {error, errors}", async () => {
      const ok = await postJson(env, `/f/${form.id}`, { name: "Ada", email: "ada@example.com" }, {
        accept: "application/json",
      });
      assert.equal(ok.status, 200);
      const body = await ok.json();
      assert.deepEqual(Object.keys(body).sort(), ["next", "ok"]);
      assert.equal(body.ok, true);
      const bad = await postJson(env, `/f/${form.id}`, { email: "ada@example.com" });
      assert.equal(bad.status, 422);
      assert.deepEqual(await bad.json(), {
        error: "The submission has invalid fields.",
        errors: [{ field: "name", code: "REQUIRED_FIELD_MISSING", message: "name is required." }],
      });
      const nested = await postJson(env, `/f/${form.id}`, { name: { first: "A" } });
      assert.equal(nested.status, 400);
      assert.match((await nested.json()).error, /top level/);
    });

    await t.step(
      "CORS: the preflight allows Formspree's headers for an allowed origin",
      async () => {
        const res = await env.request(`/f/${form.id}`, {
          method: "OPTIONS",
          headers: {
            origin: "https://site.example",
            "access-control-request-method": "POST",
            "access-control-request-headers":
              "content-type, formspree-client, formspree-session-data",
          },
        });
        assert.equal(res.status, 204);
        assert.equal(res.headers.get("access-control-allow-origin"), "https://site.example");
        assert.equal(
          res.headers.get("access-control-allow-headers"),
          "content-type, formspree-client, formspree-session-data",
        );
        const post = await postJson(env, `/f/${form.id}`, { name: "B", email: "b@example.com" }, {
          origin: "https://site.example",
          accept: "application/json",
        });
        assert.equal(post.status, 200);
        assert.equal(post.headers.get("access-control-allow-origin"), "https://site.example");
        const foreign = await postJson(
          env,
          `/f/${form.id}`,
          { name: "B", email: "b@example.com" },
          {
            origin: "https://evil.example",
            accept: "application/json",
          },
        );
        assert.equal(foreign.status, 403);
        assert.equal((await foreign.json()).errors[0].code, "BLOCKED");
      },
    );

    await t.step("without Accept: application/json it is a no-JS post", async () => {
      const res = await env.request(`/f/${form.id}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "name=Cy&email=cy%40example.com",
      });
      assert.equal(res.status, 303);
      assert.match(
        res.headers.get("location") ?? "",
        new RegExp(`/f/${form.id}/thanks\\?submission_id=`),
      );
      const refused = await env.request(`/f/${form.id}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
        body: "email=cy%40example.com",
      });
      assert.equal(refused.status, 422);
      assert.match(refused.headers.get("content-type") ?? "", /text\/html/);
      await refused.body?.cancel();
    });

    await t.step(
      "Formwell's own submit refuses top-level fields, naming data and /f/",
      async () => {
        const res = await postJson(env, `/api/v1/submit/p/${form.id}`, {
          name: "A",
          email: "a@b.co",
        });
        assert.equal(res.status, 400);
        const { error } = await res.json();
        assert.match(error, /'data'/);
        assert.match(error, /POST \/f\/<form id>/);
      },
    );
  } finally {
    env.close();
  }
});
