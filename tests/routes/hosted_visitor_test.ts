/**
 * Issue 18's visitor-side rules at the route level: the landing page and HTML 404 outside
 * the API, the favicon, hosted posts kept on the page (own-site posts still redirected),
 * intro and thank-you texts, and the admin's inline image preview (raster only).
 */
import { readSubmission } from "@/lib/submissions/records.ts";
import assert from "node:assert/strict";
import { createUser } from "@/lib/admin/users.ts";
import { createForm } from "@/lib/forms/forms.ts";
import type { FormDefinition } from "@/lib/schemas.ts";
import { PASSWORD, signIn } from "@/tests/admin_support.ts";
import { makeForm, makeWorkspace, testEnv } from "@/tests/helpers.ts";
import { SAMPLES } from "@/tests/upload_fixtures.ts";

const HTML = { accept: "text/html,application/xhtml+xml" };

Deno.test("hosted visitor - landing page, HTML 404, favicon", async (t) => {
  const env = await testEnv({ BASE_URL: "http://localhost", PUBLIC_BASE_URL: "http://forms.test" });
  try {
    await t.step("GET / is a small page; the sign-in link only where the admin is", async () => {
      const res = await env.request("/");
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type")!, /text\/html/);
      assert.ok(res.headers.get("x-request-id"));
      const html = await res.text();
      assert.match(html, /<h1>Formwell<\/h1>/);
      assert.match(html, /href="\/admin\/login"/);
      const pub = await env.app.request("http://forms.test/", { headers: HTML });
      const text = await pub.text();
      assert.equal(pub.status, 200);
      assert.doesNotMatch(text, /admin\/login/, "no admin link on the public host");
    });

    await t.step("unknown non-API paths: HTML 404 for browsers, JSON otherwise", async () => {
      const page = await env.request("/no/such/page", { headers: HTML });
      assert.equal(page.status, 404);
      assert.match(page.headers.get("content-type")!, /text\/html/);
      assert.match(page.headers.get("content-security-policy")!, /default-src 'none'/);
      assert.ok(page.headers.get("x-request-id"));
      assert.match(await page.text(), /Page not found/);
      const tool = await env.request("/no/such/page");
      assert.equal(tool.status, 404);
      assert.deepEqual(await tool.json(), { error: "Not found.", code: "not_found" });
      const api = await env.request("/api/v1/nothing-here", { headers: HTML });
      assert.equal(api.status, 404);
      assert.equal((await api.json()).code, "not_found", "the API keeps JSON");
      const admin = await env.app.request("http://forms.test/admin/login", { headers: HTML });
      assert.equal(admin.status, 404, "no admin on the public host");
      assert.doesNotMatch(await admin.text(), /password/i);
    });

    await t.step("/favicon.ico leads to the SVG icon", async () => {
      const res = await env.request("/favicon.ico");
      assert.equal(res.status, 301);
      assert.equal(res.headers.get("location"), "/static/favicon.svg");
      const svg = await env.request("/static/favicon.svg");
      assert.equal(svg.status, 200);
      assert.equal(svg.headers.get("content-type"), "image/svg+xml");
      assert.match(await svg.text(), /^<svg /);
    });
  } finally {
    env.close();
  }
});

const WITH_ERROR_REDIRECT: FormDefinition = {
  name: "Callback",
  intro: "Line one\nline two\n\n<script>alert(1)</script>",
  thank_you: "We will call you <soon>.",
  fields: [
    { name: "name", label: "Your name", type: "text", required: true },
    { name: "phone", label: "Phone", type: "tel", required: true },
    { name: "consent", label: "I agree to be contacted.", type: "boolean", required: true },
  ],
  redirect: { error: "https://site.example/oops" },
};

function postForm(env: Awaited<ReturnType<typeof testEnv>>, id: string, body: string[][]) {
  return env.request(`/api/v1/submit/p/${id}`, {
    method: "POST",
    headers: { ...HTML, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(body).toString(),
  });
}

Deno.test("hosted visitor - refused posts, texts", async (t) => {
  const env = await testEnv({ BASE_URL: "http://localhost" });
  const ws = await makeWorkspace(env.deps);
  const form = await makeForm(env.deps, ws, WITH_ERROR_REDIRECT);
  try {
    await t.step("a hosted page's post is re-rendered with the input, not redirected", async () => {
      const res = await postForm(env, form.id, [
        ["name", "Ada"],
        ["phone", "not a number"],
        ["_idempotency_key", "hf_abcdefghijklmnopqrstuvwx"],
      ]);
      assert.equal(res.status, 422);
      const html = await res.text();
      assert.match(html, /value="Ada"/);
      assert.match(html, /value="not a number"/);
      assert.match(html, /Phone must be a phone number\./);
      assert.match(html, /Please tick “I agree to be contacted”\./);
      assert.doesNotMatch(html, /is required\.<|to be contacted\. is required/);
    });

    await t.step("a stale schema version from the hosted page: the page again", async () => {
      const res = await postForm(env, form.id, [
        ["name", "Ada"],
        ["_schema_version", "7"],
        ["_idempotency_key", "hf_abcdefghijklmnopqrstuvwy"],
      ]);
      assert.equal(res.status, 409);
      assert.match(await res.text(), /This form changed since you opened it/);
    });

    await t.step("the page's notices follow its language", async () => {
      const german = await makeForm(env.deps, ws, {
        ...WITH_ERROR_REDIRECT,
        translations: { de: { form: { title: "Kontakt" } } },
      });
      const res = await env.request(`/api/v1/submit/p/${german.id}?lang=de`, {
        method: "POST",
        headers: { ...HTML, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams([
          ["name", "Ada"],
          ["_schema_version", "7"],
          ["_idempotency_key", "hf_abcdefghijklmnopqrstuvwz"],
        ]).toString(),
      });
      assert.equal(res.status, 409);
      const html = await res.text();
      assert.match(html, /<html lang="de"/);
      assert.match(html, /Dieses Formular wurde geändert, seit Sie es geöffnet haben\./);
    });

    await t.step("a site's own HTML form still gets the error redirect with fields", async () => {
      const res = await postForm(env, form.id, [["name", "Ada"], ["phone", "x"]]);
      assert.equal(res.status, 303);
      const to = new URL(res.headers.get("location")!);
      assert.equal(to.origin + to.pathname, "https://site.example/oops");
      assert.equal(to.searchParams.get("error"), "validation_failed");
      assert.equal(to.searchParams.get("fields"), "phone,consent");
    });

    await t.step("intro and thank-you texts are plain text, escaped", async () => {
      const page = await (await env.request(`/f/${form.id}`)).text();
      assert.match(page, /<p\s+class="intro plain-text">Line one\nline two<\/p>/);
      assert.match(page, /&lt;script>alert\(1\)&lt;\/script>/);
      assert.doesNotMatch(page, /<script>alert/);
      const thanks = await (await env.request(`/f/${form.id}/thanks`)).text();
      assert.match(thanks, /We will call you &lt;soon>\./);
      assert.doesNotMatch(thanks, /was received/);
      const plain = await makeForm(env.deps, ws);
      const def = await (await env.request(`/f/${plain.id}/thanks`)).text();
      assert.match(def, /Your response to “Contact” was received\./);
    });

    await t.step("texts are bounded", async () => {
      await assert.rejects(
        () => createForm(env.deps, ws.id, { ...WITH_ERROR_REDIRECT, intro: "x".repeat(2001) }),
        /intro/,
      );
      await assert.rejects(
        () => createForm(env.deps, ws.id, { ...WITH_ERROR_REDIRECT, thank_you: "x".repeat(1001) }),
        /thank_you/,
      );
    });
  } finally {
    env.close();
  }
});

Deno.test("hosted visitor - the admin previews verified raster images only", async () => {
  const env = await testEnv({ BASE_URL: "http://localhost" });
  const ws = await makeWorkspace(env.deps);
  await createUser(env.deps, {
    email: "owner@example.com",
    password: PASSWORD,
    workspaceIds: [ws.id],
    role: "owner",
    owner: true,
  });
  const form = await makeForm(env.deps, ws, {
    name: "Files",
    fields: [
      { name: "photo", type: "image", allowedTypes: ["image/png"] },
      { name: "doc", type: "file", allowedTypes: ["application/pdf"] },
    ],
  });
  try {
    const fd = new FormData();
    fd.append("photo", new Blob([SAMPLES.png], { type: "image/png" }), "me.png");
    fd.append("doc", new Blob([SAMPLES.pdf], { type: "application/pdf" }), "cv.pdf");
    const sent = await env.request(`/api/v1/submit/p/${form.id}`, {
      method: "POST",
      body: fd,
      headers: HTML,
    });
    assert.equal(sent.status, 303, await sent.text());
    const id = new URL(sent.headers.get("location")!, "http://localhost").searchParams.get(
      "submission_id",
    )!;
    const sub = (await readSubmission(env.deps.kv, form.id, id))!;
    const path = (name: string) => (sub.fields[name] as { path: string }).path;
    const cookie = await signIn(env, "owner@example.com");
    const file = (p: string, preview: boolean) =>
      env.request(
        `/admin/forms/${form.id}/file?sub=${id}&path=${encodeURIComponent(p)}${
          preview ? "&preview=1" : ""
        }`,
        { headers: { cookie } },
      );

    const page = await (await env.request(`/admin/forms/${form.id}/submissions/${id}`, {
      headers: { cookie },
    })).text();
    assert.match(page, /<img class="file-preview"[^>]*alt="Preview of me.png"/);
    assert.doesNotMatch(page, /alt="Preview of cv.pdf"/);

    const img = await file(path("photo"), true);
    assert.equal(img.status, 200);
    assert.equal(img.headers.get("content-type"), "image/png");
    assert.equal(img.headers.get("content-disposition"), "inline");
    assert.equal(img.headers.get("x-content-type-options"), "nosniff");
    assert.match(img.headers.get("content-security-policy")!, /default-src 'none'/);
    assert.deepEqual(new Uint8Array(await img.arrayBuffer()), SAMPLES.png);

    const pdf = await file(path("doc"), true);
    assert.equal(pdf.status, 404, "a PDF is never served inline");
    await pdf.body?.cancel();
    const download = await file(path("doc"), false);
    assert.equal(download.status, 303, "the download link still works");
    await download.body?.cancel();
    const anon = await env.request(
      `/admin/forms/${form.id}/file?sub=${id}&path=${encodeURIComponent(path("photo"))}&preview=1`,
    );
    assert.notEqual(anon.status, 200, "no preview without a session");
    await anon.body?.cancel();
  } finally {
    env.close();
  }
});
