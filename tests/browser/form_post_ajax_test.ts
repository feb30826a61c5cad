/**
 * Real Chromium against a real `main.ts`, from a page on another origin (a second HTTP
 * server on another port): the common AJAX pattern `fetch(action, {method: "POST", body:
 * new FormData(form), headers: {Accept: "application/json"}})` with a file gets 201 JSON
 * the page can read (CORS), one submission with the file; a refused one gets a readable
 * 422. And the admin's client-library snippet, pasted as is, survives an edit of the form
 * made while its page was open.
 */
import assert from "node:assert/strict";
import { embedSnippets } from "@/lib/admin/embed.ts";
import { getForm, updateForm } from "@/lib/forms/forms.ts";
import type { FormDefinition } from "@/lib/schemas.ts";
import { startPages, startService } from "@/tests/sdk/browser_support.ts";
import { SAMPLES } from "@/tests/upload_fixtures.ts";
import { chromiumPresent, launchChromium } from "./chromium.ts";

const APPLY: FormDefinition = {
  name: "Apply",
  fields: [
    { name: "name", label: "Your name", type: "text", required: true },
    { name: "email", label: "Email", type: "email", required: true },
    { name: "cv", label: "CV", type: "file", allowedTypes: ["application/pdf"] },
  ],
  honeypot: "_gotcha",
};

function ajaxPage(service: string, formId: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Apply</title></head>
<body><main>
<form id="apply" action="${service}/api/v1/submit/p/${formId}" method="post"
  enctype="multipart/form-data">
  <label for="name">Your name</label> <input id="name" name="name">
  <label for="email">Email</label> <input id="email" name="email">
  <label for="cv">CV</label> <input id="cv" name="cv" type="file">
  <input type="hidden" name="_subject" value="New application">
  <button type="submit">Send</button>
</form></main>
<script>
const form = document.getElementById("apply");
form.addEventListener("submit", async (e) => {
  e.preventDefault();
  window.outcome = null;
  try {
    const res = await fetch(form.action, {
      method: "POST",
      body: new FormData(form),
      headers: { Accept: "application/json" },
    });
    window.outcome = { status: res.status, body: await res.json() };
  } catch (err) {
    window.outcome = { thrown: String(err) };
  }
});
</script></body></html>`;
}

interface Outcome {
  status?: number;
  body?: Record<string, unknown> & { errors?: { field: string }[] };
  thrown?: string;
}

Deno.test({
  name: "form post browser - AJAX FormData with a file from another origin",
  ignore: !(await chromiumPresent()),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    // The site is another origin (another port), the one the form allows.
    const content: Record<string, string> = {};
    const pages = startPages(content);
    const service = await startService({ ...APPLY, allowed_origins: [pages.url] });
    content["/"] = ajaxPage(service.url, service.form.id);
    const js = await launchChromium();
    const pdf = await Deno.makeTempFile({ suffix: ".pdf" });
    await Deno.writeFile(pdf, SAMPLES.pdf);
    const page = await js.context.newPage();
    page.setDefaultTimeout(20_000);
    const outcome = async () => {
      await page.waitForFunction(() => (globalThis as unknown as { outcome?: unknown }).outcome);
      return await page.evaluate(() =>
        (globalThis as unknown as { outcome: Outcome }).outcome
      ) as Outcome;
    };
    try {
      await page.goto(pages.url);
      await t.step("201 JSON, readable by the page; one submission, the file kept", async () => {
        await page.getByLabel("Your name").fill("Ada Lovelace");
        await page.getByLabel("Email").fill("ada@example.com");
        await page.getByLabel("CV").setInputFiles(pdf);
        await page.getByRole("button", { name: "Send" }).click();
        const got = await outcome();
        assert.equal(got.thrown, undefined, "the browser did not throw (CORS, redirect)");
        assert.equal(got.status, 201);
        assert.equal(got.body?.success, true);
        assert.match(String(got.body?.submission_id), /^sub_/);
        const subs = await service.submissions();
        assert.equal(subs.length, 1, "exactly one submission");
        const [sub] = subs as {
          id: string;
          fields: Record<string, unknown>;
          files?: { path: string; field?: string }[];
        }[];
        assert.equal(sub.id, got.body?.submission_id);
        assert.equal(sub.fields.name, "Ada Lovelace");
        assert.equal(sub.fields._subject, undefined, "_subject is not data");
        const cv = sub.fields.cv as { path: string; originalFilename?: string };
        assert.ok(cv.originalFilename?.endsWith(".pdf"));
        assert.deepEqual(sub.files?.map((f) => f.path), [cv.path], "the file is referenced");
      });
      await t.step("422 JSON readable by the page; nothing stored", async () => {
        await page.getByLabel("Email").fill("not an address");
        await page.getByLabel("CV").setInputFiles([]);
        await page.getByRole("button", { name: "Send" }).click();
        const got = await outcome();
        assert.equal(got.thrown, undefined);
        assert.equal(got.status, 422);
        assert.equal(got.body?.code, "validation_failed");
        assert.deepEqual(got.body?.errors?.map((e) => e.field), ["email"]);
        assert.equal(await service.count(), 1);
      });
    } finally {
      await js.close();
      await pages.close();
      await service.stop();
      await Deno.remove(pdf).catch(() => {});
    }
  },
});

Deno.test({
  name: "form post browser - the admin's client snippet survives an edit made while open",
  ignore: !(await chromiumPresent()),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const def: FormDefinition = {
      name: "Contact",
      fields: [
        { name: "name", label: "Your name", type: "text", required: true },
        { name: "email", label: "Email", type: "email", required: true },
      ],
      honeypot: "_gotcha",
    };
    const service = await startService(def);
    const snippets = embedSnippets(service.form, service.url);
    const pages = startPages({
      "/": `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Contact</title>
</head><body><main>${snippets.html}${snippets.client}</main></body></html>`,
    });
    const js = await launchChromium();
    const page = await js.context.newPage();
    page.setDefaultTimeout(20_000);
    const sent: unknown[] = [];
    page.on("request", (req) => {
      if (req.method() === "POST" && req.url().includes("/api/v1/submit/p/")) {
        sent.push((req.postDataJSON() as { schema_version?: unknown }).schema_version);
      }
    });
    const kv = await Deno.openKv(service.kvPath);
    try {
      const schemaRead = page.waitForResponse((r) =>
        r.url().endsWith(`/api/v1/forms/p/${service.form.id}`)
      );
      await page.goto(pages.url);
      await schemaRead; // read as the page loads
      // The owner adds an optional field while the visitor's page is open.
      const deps = { kv, now: () => Date.now() };
      await updateForm(deps, service.form.id, {
        ...def,
        fields: [...def.fields!, { name: "company", type: "text" }],
      });
      assert.equal((await getForm(deps, service.form.id))?.schema_version, 2);
      await page.getByLabel("Your name").fill("Ada");
      await page.getByLabel("Email").fill("ada@example.com");
      await page.getByRole("button", { name: "Send" }).click();
      await page.locator(".fw-status").filter({ hasText: /\S/ }).waitFor();
      assert.deepEqual(sent, [1, 2], "sent the version read at load, then the new one once");
      assert.equal(await service.count(), 1);
    } finally {
      kv.close();
      await js.close();
      await pages.close();
      await service.stop();
    }
  },
});
