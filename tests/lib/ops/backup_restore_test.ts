/**
 * Backup and restore in process: a populated instance restored into an empty KV holds
 * every entry with equal keys and values (forms, submissions with numbers and statuses,
 * verdicts, keys, users, members, webhooks, audit) and every stored file, both from a KV
 * file (SQLite snapshot) and from a KV reached only through `list` (logical export); a
 * non-empty target is refused.
 */
import assert from "node:assert/strict";
import { loadConfig } from "@/lib/config.ts";
import { AppError } from "@/lib/errors.ts";
import { createBackup, lastBackup } from "@/lib/ops/backup.ts";
import { restoreBackup } from "@/lib/ops/restore.ts";
import { listSubmissions, submissionListQuerySchema } from "@/lib/submissions/query.ts";
import { assertCountersExact } from "@/tests/recount.ts";
import { listTar } from "@/lib/ops/tar.ts";
import { createJobs } from "@/lib/runtime.ts";
import { createStorage } from "@/lib/uploads/storage/mod.ts";
import { fileKey } from "@/lib/uploads/grants.ts";
import { testEnv } from "@/tests/helpers.ts";
import { allEntries, populate } from "@/tests/ops_fixtures.ts";

async function restoreInto(dir: string, backup: string) {
  const config = loadConfig({
    KV_PATH: `${dir}/restored.kv`,
    LOCAL_STORAGE_DIR: `${dir}/restored-files`,
    FORMWELL_ENV: "test",
  });
  const kv = await Deno.openKv(config.kvPath);
  const storage = createStorage(config, new Uint8Array(32));
  const result = await restoreBackup(kv, config, { jobs: createJobs(kv, config), storage }, backup);
  return { kv, config, result };
}

for (const source of ["file", "memory"] as const) {
  Deno.test(`ops backup - restore from a ${source} KV keeps every entry and file`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "formwell-backup-" });
    const env = await testEnv(source === "file" ? { KV_PATH: `${dir}/source.kv` } : {});
    try {
      const p = await populate(env);
      const out = `${dir}/backup.tar`;
      const rec = await createBackup(env.deps.kv, env.deps.config, out);
      assert.equal(rec.kv, source === "file" ? "sqlite" : "entries");
      assert.equal(rec.files, 1);
      assert.equal(rec.bytes, (await Deno.stat(out)).size);
      assert.deepEqual(await lastBackup(env.deps.kv), rec);
      using f = await Deno.open(out);
      const names = (await listTar(f)).map((m) => m.name);
      assert.deepEqual(names, [
        "formwell-backup.json",
        source === "file" ? "kv.sqlite" : "kv.entries",
        fileKey(p.withFile.path),
      ]);
      const before = await allEntries(env.deps.kv);
      const prefixes = new Set(before.map(([k]) => String(k[0])));
      for (
        const k of [
          "forms",
          "submissions",
          "submission_verdicts",
          "api_keys_by_hash",
          "users",
          "webhooks",
          "audit",
          "upload_grants",
          "words",
          "word_counts",
        ]
      ) {
        assert.ok(prefixes.has(k), `the instance holds ${k}`);
      }

      const r = await restoreInto(dir, out);
      try {
        assert.deepStrictEqual(await allEntries(r.kv), before);
        // The search index came with it: the restored instance finds by it at once.
        const q = submissionListQuerySchema.parse({ search: p.ids[1] });
        const found = await listSubmissions({ kv: r.kv, now: Date.now }, p.form, "live", q);
        assert.deepEqual(found.submissions.map((s) => s.id), [p.ids[1]]);
        await assertCountersExact(r.kv, p.form.id, "live");
        assert.equal(r.result.entries, before.length);
        assert.equal(r.result.files, 1);
        // A KV file's queue (jobs no runner took yet) is enqueued again.
        if (source === "file") assert.ok(r.result.jobs > 0, "queued jobs restored");
        const restored = await Deno.readFile(
          `${r.config.localStorageDir}/${fileKey(p.withFile.path)}`,
        );
        assert.deepEqual(restored, p.withFile.bytes);

        // A second restore into the now non-empty KV is refused with a clear message.
        const again = await restoreBackup(r.kv, r.config, {
          jobs: createJobs(r.kv, r.config),
          storage: createStorage(r.config, new Uint8Array(32)),
        }, out).catch((e) => e);
        assert.ok(again instanceof AppError);
        assert.match(again.message, /not empty/);
      } finally {
        r.kv.close();
      }
    } finally {
      env.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}
