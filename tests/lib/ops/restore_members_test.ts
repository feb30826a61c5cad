/**
 * Restore checks every archive member's name before it writes anything: an archive with a
 * member a backup never holds (a path leaving the storage directory, an unknown name, a
 * file twice) is refused and leaves the KV and the storage directory empty.
 */
import assert from "node:assert/strict";
import { loadConfig } from "@/lib/config.ts";
import { AppError } from "@/lib/errors.ts";
import { type BackupManifest, createBackup, MANIFEST } from "@/lib/ops/backup.ts";
import { restoreBackup } from "@/lib/ops/restore.ts";
import { listTar, readEntry, TarWriter } from "@/lib/ops/tar.ts";
import { createJobs } from "@/lib/runtime.ts";
import { createStorage } from "@/lib/uploads/storage/mod.ts";
import { testEnv } from "@/tests/helpers.ts";
import { populate } from "@/tests/ops_fixtures.ts";

/** Writes `out`: the members of the good backup `from`, then `extra` members. */
async function tampered(from: string, out: string, extra: [string, string][]) {
  using src = await Deno.open(from);
  using dst = await Deno.open(out, { write: true, createNew: true });
  const tar = new TarWriter(dst);
  for (const m of await listTar(src)) await tar.addBytes(m.name, await readEntry(src, m));
  for (const [name, text] of extra) await tar.addBytes(name, new TextEncoder().encode(text));
  await tar.finish();
}

async function isEmptyKv(kv: Deno.Kv): Promise<boolean> {
  for await (const _ of kv.list({ prefix: [] }, { limit: 1 })) return false;
  return true;
}

async function entriesIn(dir: string): Promise<string[]> {
  try {
    return (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name);
  } catch {
    return [];
  }
}

Deno.test("ops restore - a bad member name refuses the archive before anything is written", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "formwell-restore-" });
  const env = await testEnv({ KV_PATH: `${dir}/source.kv`, LOCAL_STORAGE_DIR: `${dir}/files` });
  try {
    await populate(env);
    const good = `${dir}/good.tar`;
    await createBackup(env.deps.kv, env.deps.config, good);
    const cases: [string, [string, string][]][] = [
      ["a path out of the storage directory", [["files/../../escaped", "x"]]],
      ["a deeper path", [["files/f1/a/b", "x"]]],
      ["an unknown member", [["notes.txt", "x"]]],
      ["a member twice", [[MANIFEST, "{}"]]],
    ];
    for (const [what, extra] of cases) {
      await t.step(what, async () => {
        const bad = `${dir}/bad-${crypto.randomUUID()}.tar`;
        await tampered(good, bad, extra);
        const target = `${dir}/${crypto.randomUUID()}`;
        const config = loadConfig({
          KV_PATH: `${target}.kv`,
          LOCAL_STORAGE_DIR: `${target}-files`,
          FORMWELL_ENV: "test",
        });
        const kv = await Deno.openKv(config.kvPath);
        const storage = createStorage(config, new Uint8Array(32));
        try {
          const err = await restoreBackup(
            kv,
            config,
            { jobs: createJobs(kv, config), storage },
            bad,
          )
            .catch((e) => e);
          assert.ok(err instanceof AppError, String(err));
          assert.match(err.message, /never has .*nothing was restored/);
          assert.ok(await isEmptyKv(kv), "no KV entry written");
          assert.deepEqual(await entriesIn(`${target}-files`), [], "no file written");
        } finally {
          kv.close();
        }
      });
    }

    await t.step("a manifest without files refuses file members", async () => {
      const noFiles = `${dir}/nofiles.tar`;
      {
        using src = await Deno.open(good);
        using dst = await Deno.open(noFiles, { write: true, createNew: true });
        const tar = new TarWriter(dst);
        for (const m of await listTar(src)) {
          let bytes = await readEntry(src, m);
          if (m.name === MANIFEST) {
            const manifest: BackupManifest = JSON.parse(new TextDecoder().decode(bytes));
            bytes = new TextEncoder().encode(JSON.stringify({ ...manifest, files: false }));
          }
          await tar.addBytes(m.name, bytes);
        }
        await tar.finish();
      }
      const config = loadConfig({
        KV_PATH: `${dir}/nofiles.kv`,
        LOCAL_STORAGE_DIR: `${dir}/nofiles-files`,
        FORMWELL_ENV: "test",
      });
      const kv = await Deno.openKv(config.kvPath);
      try {
        const storage = createStorage(config, new Uint8Array(32));
        const err = await restoreBackup(
          kv,
          config,
          { jobs: createJobs(kv, config), storage },
          noFiles,
        )
          .catch((e) => e);
        assert.ok(err instanceof AppError);
        assert.ok(await isEmptyKv(kv));
      } finally {
        kv.close();
      }
    });
  } finally {
    env.close();
    await Deno.remove(dir, { recursive: true });
  }
});
