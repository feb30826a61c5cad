/**
 * Admin pages offer a control only to a role that may use it: for each kind of control, a
 * viewer's page has none of it (an admin's has), and the same action sent directly is
 * refused with a page that says why and links back to where the request came from.
 */
import assert from "node:assert/strict";
import { keys } from "@/lib/kv/keys.ts";
import { page, post, signIn } from "@/tests/admin_support.ts";
import { member } from "@/tests/account_support.ts";
import { contactData, makeForm, makeWorkspace, postJson, testEnv } from "@/tests/helpers.ts";

/** Same-origin browser headers, with the page the form was on. */
function from(path: string): Record<string, string> {
  return {
    origin: "http://localhost",
    "sec-fetch-site": "same-origin",
    referer: `http://localhost${path}`,
  };
}

/** Asserts a refusal page: 403, the role in words, and a link back to `back`. */
async function assertRefused(res: Response, back: string, label: string): Promise<void> {
  const html = await res.text();
  assert.equal(res.status, 403, label);
  assert.match(html, /<h1>Your role does not allow this<\/h1>/, label);
  assert.match(html, /your role here is (viewer|admin)/, label);
  const link = /<a class="button secondary" href="([^"]+)">([^<]+)<\/a>/.exec(html);
  assert.ok(link, `${label}: a link back`);
  assert.equal(link[1].replaceAll("&amp;", "&"), back, label);
}

Deno.test("admin roles UI - controls by role; refusals explain and link back", async (t) => {
  const env = await testEnv({ RATE_LIMITS: '{"login":1000}' });
  try {
    const ws = await makeWorkspace(env.deps, "starter");
    const form = await makeForm(env.deps, ws);
    const sent = await postJson(env, `/api/v1/submit/p/${form.id}`, contactData(1));
    const sid = (await sent.json()).submission_id as string;
    await member(env, ws, "owner@example.com", "owner");
    await member(env, ws, "admin@example.com", "admin");
    await member(env, ws, "viewer@example.com", "viewer");
    const viewer = await signIn(env, "viewer@example.com");
    const admin = await signIn(env, "admin@example.com");
    const overview = `/admin/forms/${form.id}`;
    const list = `${overview}/submissions`;
    const one = `${list}/${sid}`;

    /** Page, markers only an admin may see, the action to send, and where back leads. */
    const cases: {
      kind: string;
      path: string;
      markers: RegExp[];
      /** A POST's fields, or null for a GET (a link). */
      action: [string, Record<string, string> | [string, string][] | null];
    }[] = [
      {
        kind: "create (New form)",
        path: "/admin/forms",
        markers: [/href="\/admin\/forms\/new"/],
        action: ["/admin/forms/new", { name: "Sneaky" }],
      },
      {
        kind: "edit (Edit tab, accepting switch)",
        path: overview,
        markers: [/href="\/admin\/forms\/[^"]+\/edit"/, /name="accepting"/],
        action: [overview, { accepting: "off" }],
      },
      {
        kind: "manage (Duplicate, Archive, Delete form)",
        path: overview,
        markers: [/value="duplicate"/, /value="archive"/, /href="\/admin\/forms\/[^"]+\/delete"/],
        action: [overview, { action: "duplicate" }],
      },
      {
        kind: "export (CSV, JSON)",
        path: list,
        markers: [/export\.csv/, /export\.json/],
        action: [`${overview}/export.csv`, null],
      },
      {
        kind: "bulk (selection, Delete selected, Mark as spam)",
        path: list,
        markers: [/name="ids"/, /value="confirm_delete"/, /value="mark_spam"/],
        action: [list, [["action", "delete"], ["ids", sid]]],
      },
      {
        kind: "one submission (Mark as spam, Mark as unread, Delete)",
        path: one,
        markers: [/name="status" value="spam"/, /value="unread"/, /confirm=delete/],
        action: [one, { status: "spam" }],
      },
    ];

    for (const c of cases) {
      await t.step(c.kind, async () => {
        const seen = await page(env, viewer, c.path);
        assert.equal(seen.res.status, 200);
        const adminSees = await page(env, admin, c.path);
        for (const m of c.markers) {
          assert.match(adminSees.html, m, `an admin sees ${m}`);
          assert.doesNotMatch(seen.html, m, `a viewer sees ${m}`);
        }
        const [to, fields] = c.action;
        if (fields === null) {
          const res = await env.request(to, { headers: { cookie: viewer, ...from(c.path) } });
          return await assertRefused(res, c.path, c.kind);
        }
        const body = Array.isArray(fields)
          ? [...fields, ["_csrf", seen.csrf]] as [string, string][]
          : { ...fields, _csrf: seen.csrf };
        await assertRefused(await post(env, viewer, to, body, from(c.path)), c.path, c.kind);
      });
    }

    await t.step("nothing the viewer sent took effect", async () => {
      const stored = await env.deps.kv.get<{ status: string }>(keys.submission(form.id, sid));
      assert.equal(stored.value?.status, "completed");
      assert.equal((await page(env, admin, "/admin/forms")).html.match(/Copy of/g), null);
    });

    await t.step("a page opened by address: refused, back to forms", async () => {
      const edit = await env.request(`${overview}/edit`, { headers: { cookie: viewer } });
      await assertRefused(edit, "/admin/forms", "edit by address");
      const confirm = await env.request(`${one}?confirm=delete`, { headers: { cookie: viewer } });
      await assertRefused(confirm, "/admin/forms", "delete confirmation by address");
    });

    await t.step(
      "owners-only controls: an admin is refused an invitation with a way back",
      async () => {
        const members = await page(env, admin, "/admin/members");
        assert.doesNotMatch(members.html, /value="invite"/);
        const res = await post(env, admin, "/admin/members", {
          _csrf: members.csrf,
          action: "invite",
          email: "new@example.com",
          role: "viewer",
        }, from("/admin/members"));
        await assertRefused(res, "/admin/members", "invite by an admin");
      },
    );

    await t.step("instance-owner pages: refused in words, back where the link was", async () => {
      const res = await env.request("/admin/workspaces", {
        headers: { cookie: admin, referer: "http://localhost/admin/forms" },
      });
      const html = await res.text();
      assert.equal(res.status, 403);
      assert.match(html, /<h1>Your role does not allow this<\/h1>/);
      assert.match(html, /Only an instance owner can manage workspaces/);
      assert.match(html, /href="\/admin\/forms">Back to the previous page</);
    });

    await t.step("a cross-site refusal still says to reload, with a way back", async () => {
      const res = await post(env, viewer, list, { action: "delete" }, {
        origin: "https://evil.example",
        "sec-fetch-site": "cross-site",
      });
      const html = await res.text();
      assert.equal(res.status, 403);
      assert.match(html, /<h1>Request blocked<\/h1>/);
      assert.match(html, /href="\/admin\/forms">Back to forms</);
    });
  } finally {
    env.close();
  }
});
