/**
 * `restore --in F`: loads a backup (lib/ops/backup.ts) into an EMPTY KV, whatever its kind
 * (a local file or KV Connect): every entry is written again in batches, the queue
 * messages a SQLite snapshot held are enqueued again through the configured job runner, and
 * the stored files are written back through the configured storage. Entries keep their
 * keys, values and, from a SQLite snapshot, their expiry (those expired since are not
 * written); a logical export cannot see expiry, and the result says so (`expiry_kept`).
 * @module
 */
import type { Config } from "@/lib/config.ts";
import { AppError } from "@/lib/errors.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import { jobSchema } from "@/lib/jobs/queue.ts";
import type { Jobs } from "@/lib/jobs/types.ts";
import { isStorageKey, type Storage } from "@/lib/uploads/storage/storage.ts";
import { type BackupManifest, FILES_DIR, KV_ENTRIES, KV_SQLITE, MANIFEST } from "./backup.ts";
import { copyEntry, listTar, readEntry, type TarEntry } from "./tar.ts";
import { entrySize, queuedMessages, readDump, snapshotExpiries } from "./kv_snapshot.ts";

/** What a restore wrote. */
export interface RestoreResult {
  entries: number;
  /** Whether entries kept their expiry (a SQLite snapshot); a logical export has none. */
  expiry_kept: boolean;
  jobs: number;
  files: number;
  backup_created_at: string;
}

/** Entries per commit, and their estimated bytes, well inside KV's per-commit limits. */
const BATCH_ENTRIES = 400;
const BATCH_BYTES = 400_000;

/** Why a restore is refused (a clear message, exit code 1). */
function refuse(message: string): AppError {
  return new AppError(409, "conflict", message);
}

/** Restores the backup at `path` into `kv`, which must hold nothing (else refused). */
export async function restoreBackup(
  kv: Deno.Kv,
  config: Pick<Config, "storage" | "localStorageDir">,
  deps: { jobs: Jobs; storage: Storage; now?: () => number },
  path: string,
): Promise<RestoreResult> {
  for await (const _ of kv.list({ prefix: [] }, { limit: 1 })) {
    throw refuse(
      "The target KV is not empty: restore only loads a backup into an empty KV. Point " +
        "KV_PATH at a new file (or an empty KV Connect database) and run it again.",
    );
  }
  if (config.storage === "local" && await hasFiles(`${config.localStorageDir}/files`)) {
    throw refuse(
      `LOCAL_STORAGE_DIR (${config.localStorageDir}) already holds files: restore into an ` +
        "empty directory.",
    );
  }
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch {
    throw refuse(`Cannot read --in ${path}.`);
  }
  using _file = file;
  const members = await listTar(file).catch((err) => {
    throw refuse(`--in ${path} is not a Formwell backup: ${(err as Error).message}`);
  });
  const manifest = await readManifest(file, members);
  checkMembers(members, manifest);
  const kvMember = members.find((m) =>
    m.name === (manifest.kv === "sqlite" ? KV_SQLITE : KV_ENTRIES)
  );
  if (!kvMember) throw refuse("The backup holds no KV data.");
  const work = await Deno.makeTempDir({ prefix: "formwell-restore-" });
  try {
    const writer = new BatchWriter(kv);
    let jobs = 0;
    if (manifest.kv === "sqlite") {
      const snap = `${work}/kv.sqlite`;
      {
        using out = await Deno.open(snap, { write: true, createNew: true });
        await copyEntry(file, kvMember, out);
      }
      const messages = queuedMessages(snap);
      const expiries = snapshotExpiries(snap);
      const source = await Deno.openKv(snap);
      try {
        const now = (deps.now ?? Date.now)();
        for await (const e of source.list({ prefix: [] }, { batchSize: 500 })) {
          const at = expiries.get(e.key);
          if (at === undefined || (at !== null && at <= now)) continue; // expired since
          await writer.add(e.key, e.value, at === null ? undefined : at - now);
        }
      } finally {
        source.close();
        expiries.close();
      }
      await writer.flush();
      jobs = await requeue(kv, deps, messages);
    } else {
      for (const e of readDump(await readEntry(file, kvMember))) await writer.add(e.key, e.value);
      await writer.flush();
    }
    let files = 0;
    for (const m of members.filter((m) => m.name.startsWith(FILES_DIR))) {
      const bytes = await readEntry(file, m);
      await deps.storage.write(m.name, bytes, "application/octet-stream");
      files++;
    }
    return {
      entries: writer.count,
      expiry_kept: manifest.kv === "sqlite",
      jobs,
      files,
      backup_created_at: manifest.created_at,
    };
  } finally {
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}

/**
 * Refuses, before anything is written, an archive with a member a backup never holds: only
 * the manifest, the KV member the manifest names and stored files (`files/<form>/<file>`,
 * when the manifest says files are included), each once.
 */
function checkMembers(members: TarEntry[], manifest: BackupManifest): void {
  const kvName = manifest.kv === "sqlite" ? KV_SQLITE : KV_ENTRIES;
  const seen = new Set<string>();
  const bad = members.map((m) => m.name).filter((name) => {
    const ok = !seen.has(name) && (name === MANIFEST || name === kvName ||
      (manifest.files && name.startsWith(FILES_DIR) && isStorageKey(name)));
    seen.add(name);
    return !ok;
  });
  if (bad.length) {
    const names = bad.slice(0, 5).map((n) => JSON.stringify(n)).join(", ");
    throw refuse(
      `The backup holds ${bad.length} member(s) a Formwell backup never has (${names}` +
        `${bad.length > 5 ? ", ..." : ""}), or one twice; nothing was restored.`,
    );
  }
}

async function readManifest(file: Deno.FsFile, members: TarEntry[]): Promise<BackupManifest> {
  const m = members.find((e) => e.name === MANIFEST);
  let manifest: BackupManifest | null = null;
  try {
    if (m) manifest = JSON.parse(new TextDecoder().decode(await readEntry(file, m)));
  } catch {
    // reported below
  }
  if (manifest?.format !== "formwell-backup") throw refuse("Not a Formwell backup (no manifest).");
  if (manifest.version !== 1) {
    throw refuse(`Backup format version ${manifest.version} is newer than this Formwell reads.`);
  }
  return manifest;
}

/** Enqueues the snapshot's valid job messages again, due when they were (or now). */
async function requeue(
  kv: Deno.Kv,
  deps: { jobs: Jobs; now?: () => number },
  messages: { data: unknown; dueAt: number }[],
): Promise<number> {
  const now = (deps.now ?? Date.now)();
  const jobs = messages.flatMap((m) => {
    const parsed = jobSchema.safeParse(m.data);
    return parsed.success ? [{ job: parsed.data, delay: Math.max(0, m.dueAt - now) }] : [];
  });
  for (let i = 0; i < jobs.length; i += 50) {
    const op = kv.atomic();
    for (const j of jobs.slice(i, i + 50)) deps.jobs.enqueue(op, j.job, { delay: j.delay });
    const res = await withKvRetry(() => op.commit());
    if (!res.ok) throw new Error("restoring queued jobs failed");
  }
  return jobs.length;
}

/** Writes entries in commits of bounded count and size. */
class BatchWriter {
  count = 0;
  #kv: Deno.Kv;
  #batch: { key: Deno.KvKey; value: unknown; expireIn?: number }[] = [];
  #bytes = 0;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  async add(key: Deno.KvKey, value: unknown, expireIn?: number): Promise<void> {
    const size = entrySize(key, value);
    if (this.#batch.length >= BATCH_ENTRIES || this.#bytes + size > BATCH_BYTES) {
      await this.flush();
    }
    this.#batch.push({ key, value, expireIn });
    this.#bytes += size;
  }

  async flush(): Promise<void> {
    if (!this.#batch.length) return;
    const op = this.#kv.atomic();
    for (const e of this.#batch) {
      op.set(e.key, e.value, e.expireIn === undefined ? undefined : { expireIn: e.expireIn });
    }
    const res = await withKvRetry(() => op.commit());
    if (!res.ok) throw new Error("restoring KV entries failed");
    this.count += this.#batch.length;
    this.#batch = [];
    this.#bytes = 0;
  }
}

async function hasFiles(dir: string): Promise<boolean> {
  try {
    for await (const _ of Deno.readDir(dir)) return true;
  } catch {
    // no directory: nothing there
  }
  return false;
}
