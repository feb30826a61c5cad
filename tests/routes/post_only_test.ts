/**
 * A POST-only public route opened with another method (a browser following the submit
 * URL, a `GET` from a script) answers `405` with `Allow: POST` and says what it takes:
 * JSON in the documented error shape, or an HTML page for a browser; never a `404`.
 */
import assert from "node:assert/strict";
import { assertDocumented } from "@/tests/api_contract.ts";
import { CONTACT_FORM, makeForm, makeWorkspace, recount, testEnv } from "@/tests/helpers.ts";

const BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

Deno.test("post-only routes - other methods are 405 with Allow: POST", async (t) => {
  const env = await testEnv();
  const form = await makeForm(env.deps, await makeWorkspace(env.deps), CONTACT_FORM);
  const paths = [
    `/api/v1/submit/p/${form.id}`,
    `/api/v1/forms/p/${form.id}/validate`,
    `/api/v1/forms/p/${form.id}/events`,
    `/api/v1/forms/p/${form.id}/upload-url`,
    `/api/v1/forms/p/${form.id}/drafts`,
  ];
  try {
    await t.step("GET from a script: the documented JSON error body", async () => {
      for (const path of paths) {
        const res = await env.request(path, { headers: { accept: "application/json" } });
        assert.equal(res.status, 405, path);
        assert.equal(res.headers.get("allow"), "POST", path);
        // The route's declaration lists the 405 with the error body.
        const body = await assertDocumented(env.deps, "POST", path, res) as Record<string, string>;
        assert.equal(body.code, "method_not_allowed", path);
        assert.match(body.error, /^GET is not allowed here\. This address takes POST/, path);
      }
    });
    await t.step("GET from a browser: an HTML page saying what the address takes", async () => {
      for (const path of paths.slice(1)) {
        const res = await env.request(path, { headers: { accept: BROWSER } });
        assert.equal(res.status, 405, path);
        assert.match(await res.text(), /This address is not a page/, path);
      }
      const res = await env.request(paths[0], { headers: { accept: BROWSER } });
      assert.equal(res.status, 405);
      assert.equal(res.headers.get("allow"), "POST");
      assert.match(res.headers.get("content-type")!, /text\/html/);
      const html = await res.text();
      assert.match(html, /This address is not a page/);
      assert.match(html, /takes POST requests with a form submission/);
      assert.match(html, /href="\/docs\/api"/);
    });
    await t.step("PUT, PATCH, DELETE and HEAD too; POST still works", async () => {
      for (const method of ["PUT", "PATCH", "DELETE", "HEAD"]) {
        for (const path of paths) {
          const res = await env.request(path, { method });
          assert.equal(res.status, 405, `${method} ${path}`);
          assert.equal(res.headers.get("allow"), "POST");
          await res.body?.cancel();
        }
      }
      const res = await env.request(paths[0], {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ data: { name: "Ada", email: "ada@example.com" } }),
      });
      assert.equal(res.status, 201);
      await res.body?.cancel();
      assert.equal(await recount(env.deps, form.id), 1);
    });
    await t.step("an unknown form is still 405 (the method is wrong whatever the id)", async () => {
      const res = await env.request("/api/v1/submit/p/fNoSuchForm12");
      assert.equal(res.status, 405);
      await res.body?.cancel();
    });
  } finally {
    env.close();
  }
});
