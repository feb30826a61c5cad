/**
 * Small things the admin pages say: file sizes in real units, the builder's preview of a
 * select as the live form shows it, "Mark as spam" not dressed as a delete, metadata as the
 * API returns it, and what plans mean on a self-hosted server.
 */
import assert from "node:assert/strict";
import { dispatch } from "@/lib/jobs/mod.ts";
import { readSubmission } from "@/lib/submissions/records.ts";
import { seedSubmissions } from "@/bench/seed.ts";
import { page, PASSWORD, signIn } from "@/tests/admin_support.ts";
import { createUser } from "@/lib/admin/users.ts";
import { contactData, makeForm, makeWorkspace, postJson } from "@/tests/helpers.ts";
import { FILES_FORM, grantFor, putBytes, submitFiles, uploadEnv } from "@/tests/upload_fixtures.ts";

Deno.test("admin details - sizes, select preview, spam button, metadata, plans", async (t) => {
  const u = await uploadEnv("local", { RATE_LIMITS: '{"login":1000}' });
  const env = u.env;
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    await createUser(env.deps, {
      email: "owner@example.com",
      password: PASSWORD,
      workspaceIds: [ws.id],
      role: "owner",
      owner: true,
    });
    const cookie = await signIn(env, "owner@example.com");
    const contact = await makeForm(env.deps, ws);

    await t.step("a 33-byte file shows as 33 B", async () => {
      const form = await makeForm(env.deps, ws, FILES_FORM);
      const bytes = new TextEncoder().encode("thirty-three bytes of plain text\n");
      assert.equal(bytes.byteLength, 33);
      const g = await grantFor(u, form.id, "fld_cv", "notes.txt", "text/plain", 33);
      assert.equal(await putBytes(u, g, bytes, "text/plain"), 200);
      const sent = await submitFiles(u, form.id, { name: "Ada", cv: { path: g.path } });
      assert.equal(sent.status, 201);
      const { html } = await page(
        env,
        cookie,
        `/admin/forms/${form.id}/submissions/${sent.body.submission_id}`,
      );
      assert.match(html, /notes\.txt<\/a> <span class="muted">text\/plain · 33 B<\/span>/);
      // No size in KB anywhere ("0.0 KB" before); a bare /KB/ also hit the random CSRF token.
      assert.doesNotMatch(html, /\d KB\b/);
    });

    await t.step("the builder previews a select with the live form's Choose…", async () => {
      const { html } = await page(env, cookie, `/admin/forms/${contact.id}/edit`);
      const select = /<select id="pv-[^"]*"\s*>(.*?)<\/select>/.exec(html);
      assert.ok(select, "the preview has the topic select");
      assert.match(
        select[1],
        /^<option value="">Choose…<\/option><option\s+value="sales">sales<\/option>/,
      );
      const hosted = await (await env.request(`/f/${contact.id}`)).text();
      assert.match(hosted, /<option value="" selected>Choose…<\/option>/);
    });

    const sent = await postJson(env, `/api/v1/submit/p/${contact.id}`, contactData(2));
    const sid = (await sent.json()).submission_id as string;
    const one = `/admin/forms/${contact.id}/submissions/${sid}`;

    await t.step("Mark as spam is a warning, Delete is the danger", async () => {
      const sub = await page(env, cookie, one);
      assert.match(sub.html, /<button type="submit" name="status" value="spam" class="warning">/);
      assert.match(sub.html, /<a class="button danger" href="[^"]*confirm=delete">/);
      const list = await page(env, cookie, `/admin/forms/${contact.id}/submissions`);
      assert.match(list.html, /value="mark_spam" class="warning small"/);
      assert.match(list.html, /value="confirm_delete" class="danger small"/);
    });

    await t.step(
      "metadata shows the server's scored_at as the API does: a later verdict's",
      async () => {
        // Final when stored: no scored_at to show, and no metadata was sent.
        const stored = await readSubmission(env.deps.kv, contact.id, sid);
        assert.equal(stored?.scored_at, stored?.created_at, "scored by the storing commit");
        assert.match((await page(env, cookie, one)).html, /No metadata was sent/);
        // One the scoring job scored after it was stored (as with a second opinion) shows it.
        const [seeded] = await seedSubmissions(env.deps, contact, 1, { status: () => "completed" });
        await dispatch(env.deps, {
          type: "score_batch",
          form_id: contact.id,
          workspace_id: contact.workspace_id,
          mode: "live",
          ids: [seeded],
        });
        const later = await readSubmission(env.deps.kv, contact.id, seeded);
        assert.ok(later?.scored_at && later.scored_at !== later.created_at, "a later verdict");
        const { html } = await page(
          env,
          cookie,
          `/admin/forms/${contact.id}/submissions/${seeded}`,
        );
        assert.doesNotMatch(html, /No metadata was sent/);
        assert.ok(html.includes(`&quot;scored_at&quot;: &quot;${later.scored_at}&quot;`), html);
      },
    );

    await t.step("plan caps say how a self-hosted server changes a plan", async () => {
      const { html } = await page(env, cookie, "/admin/keys");
      assert.match(html, /0 of \d+ active keys on the pro plan/);
      assert.match(html, /deno task cli workspace set-plan --workspace ID --plan PLAN/);
    });
  } finally {
    await u.close();
  }
});
