/**
 * Loads the scale rows' dataset (bench/scale_data.ts) into a KV file, in its own process so
 * its memory is not the measured server's: a Business workspace, an API key (`read`,
 * `admin`), an owner user, the six-field form, then `n` submissions through
 * bench/seed.ts (the keys and indexes production writes for a stored submission, in commits
 * as KV takes them), buffered 5,000 submissions at a time and written in key order
 * (bench/kv_buffer.ts), counting every KV mutation seed.ts asked for by key family. Prints
 * one JSON line ({@linkcode LoadReport}) on stdout.
 *
 * `deno run -A bench/scale_load.ts <kv file> <n> [minutes]`: stops after `minutes` (checked
 * every 5,000 submissions) with fewer when writing is that slow.
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { createUser } from "@/lib/admin/users.ts";
import { loadConfig } from "@/lib/config.ts";
import type { Deps } from "@/lib/deps.ts";
import { createForm } from "@/lib/forms/forms.ts";
import { createApiKey } from "@/lib/keys/api_keys.ts";
import { buildDeps, openKv } from "@/lib/runtime.ts";
import { createWorkspace } from "@/lib/workspaces/workspaces.ts";
import { SIX_FIELDS } from "./fixtures.ts";
import { ScaleDataset } from "./scale_data.ts";
import { seedSubmissions } from "./seed.ts";
import { KvBuffer } from "./kv_buffer.ts";

/** The password of the owner user the export signs in as. */
export const SCALE_PASSWORD = "bench scale password 0123";
/** The owner user's email. */
export const SCALE_USER = "bench-scale@formwell.test";
/** Submissions written per call of seedSubmissions (progress and deadline between calls). */
const CHUNK = 5_000;
const DAY = 86_400_000;

/** What the loader did and left. */
export interface LoadReport {
  /** Submissions the dataset has. */
  n: number;
  /** Submissions written: `n`, or fewer when the time ran out. */
  stored: number;
  formId: string;
  workspaceId: string;
  key: string;
  /** Ids of the submissions holding the rare word, oldest first. */
  rareIds: string[];
  seconds: number;
  /** Commits bench/seed.ts made (each as KV would take it, as the writer's are). */
  commits: number;
  /** Commits the buffer's flushes made on the file (bench/kv_buffer.ts). */
  flushCommits: number;
  /** KV mutations by key family (the first part of the key). */
  mutations: Record<string, number>;
  /** The KV file's size after the load (SQLite, with its write-ahead log if one is left). */
  fileBytes: number;
  /** Rows and bytes of key + value per key family, read back from the file. */
  families: Record<string, { rows: number; bytes: number }>;
}

/**
 * Writes the dataset's submissions into `form`, oldest first, until all `data.n` are written
 * or `deadline` (a `performance.now()` time) passes; how many were written and the rare
 * word's ids among them.
 */
export async function loadDataset(
  deps: Pick<Deps, "kv" | "now" | "secret">,
  form: Parameters<typeof seedSubmissions>[1],
  data: ScaleDataset,
  opts: {
    deadline?: number;
    progress?: (done: number) => void;
    /** Writes go through it, flushed after each chunk while the next is made. */
    buffer?: KvBuffer;
  } = {},
): Promise<{ stored: number; rareIds: string[] }> {
  const start = deps.now() - 365 * DAY;
  const step = (365 * DAY) / data.n;
  const rare = new Set(data.rare);
  const rareIds: string[] = [];
  let from = 0;
  let flushing = Promise.resolve();
  while (from < data.n && performance.now() < (opts.deadline ?? Infinity)) {
    const size = Math.min(CHUNK, data.n - from);
    const base = from;
    const into = opts.buffer ? { ...deps, kv: opts.buffer.kv } : deps;
    const ids = await seedSubmissions(into, form, size, {
      fields: (i) => data.fields(base + i),
      createdAt: (i) => Math.floor(start + (base + i) * step),
    });
    // The buffer is written while the next chunk is made.
    await flushing;
    flushing = opts.buffer?.flush() ?? Promise.resolve();
    ids.forEach((id, i) => rare.has(base + i) && rareIds.push(id));
    from += size;
    opts.progress?.(from);
  }
  await flushing;
  return { stored: from, rareIds };
}

/** Rows and bytes (key + value) per key family in a Deno KV SQLite file. */
export function storedByFamily(path: string): Record<string, { rows: number; bytes: number }> {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    // A key's first part is a string: tag 0x02, its bytes, 0x00.
    const rows = db.prepare(
      `select substr(k, 2, instr(k, x'00') - 2) as family, count(*) as rows,
         sum(length(k) + length(v)) as bytes from kv group by family`,
    ).all() as { family: Uint8Array; rows: number; bytes: number }[];
    const out: Record<string, { rows: number; bytes: number }> = {};
    for (const r of rows) {
      out[new TextDecoder().decode(r.family)] = { rows: Number(r.rows), bytes: Number(r.bytes) };
    }
    return out;
  } finally {
    db.close();
  }
}

async function main(): Promise<void> {
  const [path, count, minutes] = Deno.args;
  const n = Number(count);
  if (!path || !Number.isInteger(n) || n < 1) {
    throw new Error("usage: scale_load.ts <kv file> <n> [minutes]");
  }
  const config = loadConfig({
    KV_PATH: path,
    FORMWELL_ENV: "production",
    FORMWELL_SEED: "0",
    BASE_URL: "http://127.0.0.1:8000",
    LOCAL_STORAGE_DIR: `${path}.files`,
  });
  const kv = await openKv(config);
  const deps = await buildDeps(kv, config);
  const workspace = await createWorkspace(deps, { name: "bench scale", plan: "business" });
  const key = (await createApiKey(deps, {
    workspaceId: workspace.id,
    name: "bench scale",
    scopes: ["read", "admin"],
  })).key;
  await createUser(deps, {
    email: SCALE_USER,
    password: SCALE_PASSWORD,
    workspaceIds: [workspace.id],
    role: "owner",
    owner: true,
  });
  const form = await createForm(deps, workspace.id, { name: "Scale", fields: SIX_FIELDS });
  const buffer = new KvBuffer(kv);
  const t0 = performance.now();
  const { stored, rareIds } = await loadDataset(deps, form, new ScaleDataset(n), {
    buffer,
    deadline: minutes ? t0 + Number(minutes) * 60_000 : Infinity,
    progress: (done) => {
      const s = (performance.now() - t0) / 1000;
      if (done % 100_000 === 0 || done === n || s > 60) {
        console.error(`  ${done} written in ${s.toFixed(0)} s (${(done / s).toFixed(0)}/s)`);
      }
    },
  });
  const seconds = (performance.now() - t0) / 1000;
  kv.close();
  const report: LoadReport = {
    n,
    stored,
    formId: form.id,
    workspaceId: workspace.id,
    key,
    rareIds,
    seconds,
    commits: buffer.commits,
    flushCommits: buffer.flushCommits,
    mutations: buffer.mutations,
    fileBytes: (await Deno.stat(path)).size +
      ((await Deno.stat(`${path}-wal`).catch(() => null))?.size ?? 0),
    families: storedByFamily(path),
  };
  console.log(JSON.stringify(report));
  Deno.exit(0);
}

if (import.meta.main) await main();
