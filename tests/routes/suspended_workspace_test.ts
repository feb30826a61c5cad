import { readSubmissions } from "@/lib/submissions/records.ts";
import assert from "node:assert/strict";
import { runCli } from "@/cli.ts";
import { createApiKey, listApiKeys } from "@/lib/keys/api_keys.ts";
import { getForm, listFormIds } from "@/lib/forms/forms.ts";

import { SUSPENDED_MESSAGE } from "@/lib/workspaces/suspension.ts";
import { updateWorkspace } from "@/lib/workspaces/workspaces.ts";
import { page, post, setup, signIn } from "@/tests/admin_support.ts";
import { contactData, postJson, testEnv } from "@/tests/helpers.ts";

const SUSPENDED = /This workspace is suspended: it is read-only/;

/**
 * Every refused request answers 403 and names the suspension (the keys page shows any
 * refusal of its form inline, as a 400).
 */
async function refused(label: string, res: Response, status = 403) {
  const text = await res.text();
  assert.equal(res.status, status, `${label}: ${res.status} ${text.slice(0, 200)}`);
  assert.match(text, SUSPENDED, label);
}

Deno.test("a suspended workspace is read-only in the admin, the lib and the CLI", async (t) => {
  const env = await testEnv({ RATE_LIMITS: JSON.stringify({ submit: 1000 }) });
  try {
    const { ws, form } = await setup(env);
    const key = await createApiKey(env.deps, { workspaceId: ws.id, name: "before" });
    const submitted: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await postJson(env, `/api/v1/submit/p/${form.id}`, contactData(i));
      submitted.push((await res.json()).submission_id);
    }
    const cookie = await signIn(env, "owner@example.com");
    const { csrf } = await page(env, cookie, "/admin/keys");
    await updateWorkspace(env.deps, ws.id, { suspended: true });
    const keysBefore = (await listApiKeys(env.deps, ws.id)).length;
    const formsBefore = (await listFormIds(env.deps, ws.id)).length;
    const formBefore = await getForm(env.deps, form.id);

    await t.step("pages still show what is there, each saying it is read-only", async () => {
      for (const path of [`/admin/forms/${form.id}`, "/admin/keys", "/admin/forms"]) {
        const { res, html } = await page(env, cookie, path);
        assert.equal(res.status, 200, path);
        assert.match(html, SUSPENDED, path);
      }
    });

    await t.step("key creation, export, form create/update/close, delete, status", async () => {
      await refused(
        "key create",
        await post(env, cookie, "/admin/keys", [["_csrf", csrf], ["name", "during"], [
          "scopes",
          "read",
        ]]),
        400,
      );
      await refused(
        "export",
        await env.request(`/admin/forms/${form.id}/export.csv`, { headers: { cookie } }),
      );
      await refused(
        "form create",
        await post(env, cookie, "/admin/forms/new", {
          _csrf: csrf,
          name: "New",
          fields_json: JSON.stringify([{ name: "a", type: "text" }]),
        }),
      );
      await refused(
        "form edit",
        await post(env, cookie, `/admin/forms/${form.id}/edit`, {
          _csrf: csrf,
          name: "Renamed",
          fields_json: JSON.stringify(formBefore!.fields),
        }),
      );
      await refused(
        "form close",
        await post(env, cookie, `/admin/forms/${form.id}`, { _csrf: csrf, accepting: "off" }),
      );
      const base = `/admin/forms/${form.id}/submissions`;
      await refused(
        "delete",
        await post(env, cookie, base, [["_csrf", csrf], ["action", "delete"], [
          "ids",
          submitted[0],
        ]]),
      );
      await refused(
        "mark spam",
        await post(env, cookie, `${base}/${submitted[1]}`, { _csrf: csrf, status: "spam" }),
      );
      // Nothing changed.
      assert.equal((await listApiKeys(env.deps, ws.id)).length, keysBefore);
      assert.equal((await listFormIds(env.deps, ws.id)).length, formsBefore);
      assert.deepEqual(await getForm(env.deps, form.id), formBefore);
      const subs = await readSubmissions(env.deps.kv, form.id, submitted);
      assert.ok(subs.every((s) => s?.status === "completed"));
    });

    await t.step("the CLI is refused the same way", async () => {
      await assert.rejects(
        runCli(env.deps, ["key", "create", "--workspace", ws.id, "--name", "cli"]),
        (e: Error) => e.message === SUSPENDED_MESSAGE,
      );
      await assert.rejects(
        runCli(env.deps, ["form", "close", "--form", form.id]),
        (e: Error) => e.message === SUSPENDED_MESSAGE,
      );
    });

    await t.step("revoking a key still works; unsuspended, changes work again", async () => {
      const res = await post(env, cookie, `/admin/keys/${key.id}/revoke`, { _csrf: csrf });
      assert.equal(res.status, 303);
      await updateWorkspace(env.deps, ws.id, { suspended: false });
      const ok = await post(env, cookie, `/admin/forms/${form.id}`, {
        _csrf: csrf,
        accepting: "off",
      });
      assert.equal(ok.status, 303);
      assert.equal((await getForm(env.deps, form.id))?.accepting, false);
    });
  } finally {
    env.close();
  }
});
