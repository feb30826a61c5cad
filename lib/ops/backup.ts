/**
 * `backup --out F`: one ustar archive holding a manifest, the KV (a SQLite snapshot of a
 * local KV file, else a logical export) and the locally stored files. It is written under
 * a temporary name beside F and renamed to F only once complete and synced, so F never
 * holds a partial backup. The run is recorded in KV for the System page.
 * @module
 */
import { basename, dirname, resolve } from "node:path";
import type { Config } from "@/lib/config.ts";
import { keys } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import { randomBase62 } from "@/lib/ids.ts";
import { isStorageKey } from "@/lib/uploads/storage/storage.ts";
import { TarWriter } from "./tar.ts";
import { dumpEntries, isLocalKvFile, snapshotSqlite } from "./kv_snapshot.ts";
import { FORMWELL_VERSION } from "./version.ts";

/** The archive's first member: what the backup holds. */
export interface BackupManifest {
  format: "formwell-backup";
  version: 1;
  created_at: string;
  formwell: string;
  deno: string;
  /** `sqlite`: `kv.sqlite`, a snapshot of the KV file; `entries`: `kv.entries`, a logical export. */
  kv: "sqlite" | "entries";
  /** Whether `files/` holds the stored files (local storage; S3 buckets are backed up apart). */
  files: boolean;
}

/** What a backup run wrote (printed by the CLI, kept as the last backup). */
export interface BackupRecord {
  path: string;
  at: number;
  bytes: number;
  kv: BackupManifest["kv"];
  files: number;
  duration_ms: number;
}

/** Archive member names. */
export const MANIFEST = "formwell-backup.json";
export const KV_SQLITE = "kv.sqlite";
export const KV_ENTRIES = "kv.entries";
export const FILES_DIR = "files/";

/** Writes a backup of `kv` (configured by `config`) to `out`; see the module doc. */
export async function createBackup(
  kv: Deno.Kv,
  config: Pick<Config, "kvPath" | "storage" | "localStorageDir">,
  out: string,
  now: () => number = Date.now,
): Promise<BackupRecord> {
  const started = now();
  const target = resolve(out);
  const tmp = `${dirname(target)}/.${basename(target)}.partial-${randomBase62(8)}`;
  const work = await Deno.makeTempDir({ prefix: "formwell-backup-" });
  const file = await Deno.open(tmp, { write: true, createNew: true, mode: 0o600 });
  let files = 0;
  try {
    const tar = new TarWriter(file);
    const local = isLocalKvFile(config.kvPath);
    const manifest: BackupManifest = {
      format: "formwell-backup",
      version: 1,
      created_at: new Date(started).toISOString(),
      formwell: FORMWELL_VERSION,
      deno: Deno.version.deno,
      kv: local ? "sqlite" : "entries",
      files: config.storage === "local",
    };
    await tar.addBytes(MANIFEST, new TextEncoder().encode(JSON.stringify(manifest, null, 2)));
    const kvFile = `${work}/${local ? KV_SQLITE : KV_ENTRIES}`;
    if (local) snapshotSqlite(config.kvPath!, kvFile, now());
    else {
      using dump = await Deno.open(kvFile, { write: true, createNew: true });
      await dumpEntries(kv, dump);
    }
    await addFile(tar, local ? KV_SQLITE : KV_ENTRIES, kvFile);
    // Files come after the KV: every file the snapshot references was stored before its
    // commit, so it is here unless a deletion removed it in between.
    if (manifest.files) files = await addStoredFiles(tar, config.localStorageDir);
    await tar.finish();
    await file.sync();
    file.close();
    await Deno.rename(tmp, target);
    const record: BackupRecord = {
      path: target,
      at: started,
      bytes: tar.written,
      kv: manifest.kv,
      files,
      duration_ms: now() - started,
    };
    await withKvRetry(() => kv.set(keys.lastBackup(), record));
    return record;
  } catch (err) {
    try {
      file.close();
    } catch {
      // closed already
    }
    await Deno.remove(tmp).catch(() => {});
    throw err;
  } finally {
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}

/** The last backup recorded in `kv`, if any. */
export async function lastBackup(kv: Deno.Kv): Promise<BackupRecord | null> {
  return (await withKvRetry(() => kv.get<BackupRecord>(keys.lastBackup()))).value;
}

async function addFile(tar: TarWriter, name: string, path: string): Promise<void> {
  using f = await Deno.open(path, { read: true });
  const { size } = await f.stat();
  await tar.addStream(name, size, f.readable);
}

/**
 * Adds every verified file under `<dir>/files/` (unverified `incoming/` bytes are not kept;
 * nor is anything there Formwell did not name, which restore would refuse).
 */
async function addStoredFiles(tar: TarWriter, dir: string): Promise<number> {
  const root = `${dir.replace(/\/+$/, "")}/files`;
  let n = 0;
  const walk = async (rel: string): Promise<void> => {
    let items: Deno.DirEntry[];
    try {
      items = await Array.fromAsync(Deno.readDir(`${root}${rel}`));
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return;
      throw err;
    }
    for (const item of items.sort((a, b) => a.name.localeCompare(b.name))) {
      const path = `${rel}/${item.name}`;
      if (item.isDirectory) await walk(path);
      else if (item.isFile && isStorageKey(`${FILES_DIR}${path.slice(1)}`)) {
        try {
          await addFile(tar, `${FILES_DIR}${path.slice(1)}`, `${root}${path}`);
          n++;
        } catch (err) {
          // Deleted (its submission erased) after the listing: not part of the backup.
          if (!(err instanceof Deno.errors.NotFound)) throw err;
        }
      }
    }
  };
  await walk("");
  return n;
}
