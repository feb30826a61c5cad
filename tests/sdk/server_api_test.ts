/**
 * The server-side client against the real app (in-memory KV): every Server Data API
 * route, list iterators across pages, file download, webhook management, privacy, audit,
 * and typed errors.
 */
import assert from "node:assert/strict";
import { Formwell, FormwellError } from "@/sdk/server.ts";
import { seedSubmissions } from "@/bench/seed.ts";
import { CONTACT_FORM, makeForm, makeKey, makeWorkspace, testEnv } from "@/tests/helpers.ts";
import { SAMPLES } from "@/tests/upload_fixtures.ts";
import { appFetch } from "./app_fetch.ts";

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

Deno.test("sdk server - the Server Data API through new Formwell({ apiKey })", async (t) => {
  const env = await testEnv({ WEBHOOK_ALLOW_PRIVATE: "1" });
  const ws = await makeWorkspace(env.deps, "pro");
  const forms = [];
  for (let i = 0; i < 5; i++) {
    forms.push(
      await makeForm(env.deps, ws, { ...CONTACT_FORM, name: `Form ${i}` }),
    );
  }
  const form = forms[0];
  const apiKey = await makeKey(env.deps, ws, {
    scopes: ["submit", "read", "admin"],
  });
  const fw = new Formwell({
    apiKey,
    baseUrl: "http://localhost",
    runtime: { fetch: appFetch(env) },
  });

  await t.step(
    "forms: a page, every form across pages, one form, analytics",
    async () => {
      const page = await fw.forms.page({ limit: 2, sortBy: "name" });
      assert.deepEqual(page.pagination, {
        page: 1,
        limit: 2,
        total: 5,
        total_pages: 3,
        has_more: true,
      });
      const all = await collect(fw.forms.list({ limit: 2, sortBy: "name" }));
      assert.deepEqual(all.map((f) => f.name), [
        "Form 0",
        "Form 1",
        "Form 2",
        "Form 3",
        "Form 4",
      ]);
      assert.equal((await fw.forms.get(form.id)).public_id, form.id);
      const a = await fw.forms.analytics(form.id);
      assert.equal(typeof a.views, "number");
      assert.ok(Array.isArray(a.daily));
    },
  );

  await t.step(
    "submissions: the iterator follows every page; get; delete in batches",
    async () => {
      const ids = await seedSubmissions(env.deps, form, 45);
      const all = await collect(fw.submissions.list(form.id, { limit: 20 }));
      assert.equal(all.length, 45);
      assert.deepEqual(new Set(all.map((s) => s.id)), new Set(ids));
      assert.equal(all[0].submission_number, 45, "newest first");
      const one = await fw.submissions.get(form.id, ids[0]);
      assert.equal(one.id, ids[0]);
      const result = await fw.submissions.delete(form.id, [
        ...ids.slice(0, 3),
        "sub_missing",
      ]);
      assert.deepEqual(result, { deleted: 3, not_found: ["sub_missing"] });
      assert.equal(
        (await fw.submissions.page(form.id, { limit: 1 })).pagination.total,
        42,
      );
    },
  );

  await t.step(
    "files: submit with a key, then a signed link and the bytes",
    async () => {
      const filesForm = await makeForm(env.deps, ws, {
        name: "Files",
        fields: [{
          name: "doc",
          type: "file",
          allowedTypes: ["application/pdf"],
        }],
      });
      const doc = new File([SAMPLES.pdf], "doc.pdf", {
        type: "application/pdf",
      });
      const r = await fw.submit(filesForm.id, { doc });
      const sub = await fw.submissions.get(filesForm.id, r.submission_id);
      const path = sub.files![0].path;
      const link = await fw.files.downloadUrl(filesForm.id, path);
      assert.match(link.url, /token=/);
      const res = await fw.files.download(filesForm.id, path);
      assert.deepEqual(new Uint8Array(await res.arrayBuffer()), SAMPLES.pdf);
      await assert.rejects(
        fw.files.downloadUrl(filesForm.id, "nope/x"),
        (e: FormwellError) => e.status === 404,
      );
    },
  );

  await t.step(
    "webhooks: create (secret once), list, get, update, rotate, test, deliveries, delete",
    async () => {
      const created = await fw.webhooks.create({
        url: "http://127.0.0.1:9/hook",
      });
      assert.match(created.secret ?? "", /^whsec_/);
      assert.deepEqual(created.events, ["submission.created"]);
      const listed = await collect(fw.webhooks.list());
      assert.deepEqual(listed.map((w) => w.id), [created.id]);
      assert.equal("secret" in listed[0], false);
      assert.equal(
        (await fw.webhooks.get(created.id)).url,
        "http://127.0.0.1:9/hook",
      );
      const updated = await fw.webhooks.update(created.id, { enabled: false });
      assert.equal(updated.enabled, false);
      const rotated = await fw.webhooks.rotate(created.id);
      assert.notEqual(rotated.secret, created.secret);
      const queued = await fw.webhooks.test(created.id);
      assert.equal(queued.queued, true);
      assert.deepEqual(await collect(fw.webhooks.deliveries(created.id)), []);
      assert.deepEqual(await fw.webhooks.delete(created.id), {
        deleted: true,
        id: created.id,
      });
      await assert.rejects(
        fw.webhooks.get(created.id),
        (e: FormwellError) => e.status === 404,
      );
    },
  );

  await t.step(
    "privacy: export and erase by email, the job's progress",
    async () => {
      await fw.submit(form.id, { name: "Eve", email: "eve@example.com" });
      const exported = await fw.privacy.export("EVE@example.com");
      assert.equal(exported.submissions.length, 1);
      assert.equal(exported.submissions[0].form.public_id, form.id);
      const job = await fw.privacy.erase("eve@example.com");
      assert.ok(job.id);
      assert.equal((await fw.privacy.job(job.id)).id, job.id);
    },
  );

  await t.step("audit: the iterator over every page of the log", async () => {
    const total = (await fw.audit.page({ limit: 2 })).pagination.total;
    assert.ok(total > 2, "more than one page");
    const events = await collect(fw.audit.list({ limit: 2 }));
    assert.equal(events.length, total);
    assert.ok(events.some((e) => e.action === "submissions.deleted"));
  });

  await t.step(
    "events: pages follow next_cursor; a stored cursor resumes after it",
    async () => {
      const all = await collect(fw.events.list({ limit: 100 }));
      assert.ok(all.length > 2, `deletes made events (${all.length})`);
      const pages = await collect(fw.events.pages({ limit: 2 }));
      assert.ok(pages.length > 1);
      assert.deepEqual(
        pages.flatMap((p) => p.events).map((e) => e.id),
        all.map((e) => e.id),
      );
      assert.equal(pages.at(-1)!.has_more, false);
      const deleted = await collect(
        fw.events.list({ types: ["submission.deleted"] }),
      );
      assert.ok(
        deleted.length > 0 &&
          deleted.every((e) => e.type === "submission.deleted"),
      );
      const resumed = await fw.events.page({
        after: pages.at(-1)!.next_cursor,
      });
      assert.deepEqual(resumed.events, []);
      await fw.submissions.delete(form.id, [
        (await fw.submit(form.id, {
          name: "Late",
          email: "late@example.com",
        })).submission_id,
      ]);
      const next = await fw.events.page({ after: pages.at(-1)!.next_cursor });
      // Stored with its final verdict, then deleted: both events, in that order.
      assert.deepEqual(next.events.map((e) => e.type), [
        "submission.created",
        "submission.deleted",
      ]);
    },
  );

  await t.step(
    "errors are FormwellErrors with status, code and request id",
    async () => {
      const bad = new Formwell({
        apiKey: "fw_live_nope",
        baseUrl: "http://localhost",
        runtime: { fetch: appFetch(env) },
      });
      await assert.rejects(bad.forms.get(form.id), (e: FormwellError) => {
        assert.ok(e instanceof FormwellError);
        assert.equal(e.status, 401);
        assert.equal(e.code, "invalid_api_key");
        assert.equal(e.message, "Invalid API key.");
        assert.match(e.requestId ?? "", /^req_/);
        return true;
      });
      const readOnly = new Formwell({
        apiKey: await makeKey(env.deps, ws, { scopes: ["read"] }),
        baseUrl: "http://localhost",
        runtime: { fetch: appFetch(env) },
      });
      await assert.rejects(
        readOnly.webhooks.page(),
        (e: FormwellError) => e.code === "insufficient_scope",
      );
    },
  );
  await t.step("forms: create with a key, read and update by key:<slug>", async () => {
    const made = await fw.forms.create({ key: "newsletter", ...CONTACT_FORM, name: "News" });
    assert.equal(made.key, "newsletter");
    assert.equal((await fw.forms.get("key:newsletter")).public_id, made.public_id);
    const changed = await fw.forms.update("key:newsletter", { name: "Newsletter" });
    assert.equal(changed.name, "Newsletter");
    assert.equal(changed.schema_version, made.schema_version);
    const err = await fw.forms.create({ key: "newsletter", name: "" }).catch((e) => e);
    assert.ok(err instanceof FormwellError);
    assert.equal(err.status, 422);
    assert.equal(err.code, "validation_failed");
    assert.ok(err.errors.some((e: { field: string }) => e.field === "name"));
  });
  env.close();
});
