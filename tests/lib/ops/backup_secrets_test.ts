/**
 * What a backup leaves out and what a restore keeps: the one-time reveal store (a raw API
 * key, a webhook secret, shown once for a few minutes) is never in a backup, neither in a
 * SQLite snapshot's bytes nor in a logical export; entries already expired are not in a
 * snapshot; and entries that expire keep their expiry through a restore from a snapshot,
 * while a logical export's restore says it could not keep any.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { storeKeyReveal } from "@/lib/admin/key_reveal.ts";
import { loadConfig } from "@/lib/config.ts";
import { keys } from "@/lib/kv/keys.ts";
import { createBackup } from "@/lib/ops/backup.ts";
import { restoreBackup } from "@/lib/ops/restore.ts";
import { createJobs } from "@/lib/runtime.ts";
import { createStorage } from "@/lib/uploads/storage/mod.ts";
import { testEnv } from "@/tests/helpers.ts";
import { allEntries, populate } from "@/tests/ops_fixtures.ts";

const RAW_KEY = "fwk_live_0123456789abcdefghijklmnopqrstuv";
const HOOK_SECRET = "whsec_abcdefghijklmnopqrstuvwxyz0123456789";

/** Expiry (epoch ms) of every expiring row of a KV file, by hex key. */
function expiriesOf(path: string): Map<string, number> {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const rows = db.prepare("SELECT hex(k) AS k, expiration_ms AS at FROM kv WHERE at >= 0")
      .all() as { k: string; at: number }[];
    return new Map(rows.map((r) => [r.k, Number(r.at)]));
  } finally {
    db.close();
  }
}

function contains(haystack: Uint8Array, text: string): boolean {
  return new TextDecoder("latin1").decode(haystack).includes(text);
}

for (const source of ["file", "memory"] as const) {
  Deno.test(`ops backup - secrets and expiry, from a ${source} KV`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "formwell-backup-" });
    const env = await testEnv(source === "file" ? { KV_PATH: `${dir}/source.kv` } : {});
    try {
      const p = await populate(env);
      const reveal = { session_user: "usr_x", workspace_id: p.form.workspace_id, name: "k" };
      await storeKeyReveal(env.deps, { ...reveal, key: RAW_KEY });
      await storeKeyReveal(env.deps, { ...reveal, key: HOOK_SECRET });
      // Expired already, but still stored until KV's lazy cleanup.
      await env.deps.kv.set(["idempotency", "gone"], { raw: "expired-entry-marker" }, {
        expireIn: 1,
      });
      await new Promise((r) => setTimeout(r, 20));
      const before = (await allEntries(env.deps.kv)).filter(([k]) =>
        k[0] !== keys.keyReveals()[0] && k[1] !== "gone"
      );

      const out = `${dir}/backup.tar`;
      await createBackup(env.deps.kv, env.deps.config, out);
      const bytes = await Deno.readFile(out);
      assert.ok(!contains(bytes, RAW_KEY), "the raw API key is not in the backup");
      assert.ok(!contains(bytes, HOOK_SECRET), "the webhook secret is not in the backup");
      if (source === "file") {
        assert.ok(!contains(bytes, "expired-entry-marker"), "an expired entry is not kept");
      }

      const config = loadConfig({
        KV_PATH: `${dir}/restored.kv`,
        LOCAL_STORAGE_DIR: `${dir}/restored-files`,
        FORMWELL_ENV: "test",
      });
      const kv = await Deno.openKv(config.kvPath);
      const storage = createStorage(config, new Uint8Array(32));
      const result = await restoreBackup(
        kv,
        config,
        { jobs: createJobs(kv, config), storage },
        out,
      );
      const restored = await allEntries(kv);
      kv.close();
      assert.equal(result.expiry_kept, source === "file");
      assert.ok(!restored.some(([k]) => k[0] === keys.keyReveals()[0]), "no reveal restored");
      if (source === "file") assert.deepStrictEqual(restored, before);

      if (source === "file") {
        // Every expiring entry (audit events, sessions, ...) expires when it did before.
        const was = expiriesOf(`${dir}/source.kv`);
        const now = expiriesOf(config.kvPath!);
        const kept = [...was].filter(([k]) => !k.startsWith("0261646D696E5F6B65795F72657665616C00"))
          .filter(([, at]) => at > Date.now());
        assert.ok(kept.length > 0, "the instance holds expiring entries");
        for (const [k, at] of kept) {
          const got = now.get(k);
          assert.ok(got !== undefined, `expiry of ${k} kept`);
          assert.ok(Math.abs(got - at) < 5_000, `${k}: ${got} vs ${at}`);
        }
      }
    } finally {
      env.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}
