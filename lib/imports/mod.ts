/**
 * Importing another service's export (or any CSV) into a form: read the file (rows.ts),
 * put its rows in time order so numbers follow time, and write them in batches
 * (commit.ts), each batch whole or not at all; a re-run skips the rows already imported,
 * so an import that stopped half-way is finished by running it again.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { audit } from "@/lib/privacy/audit.ts";
import type { Form } from "@/lib/schemas.ts";
import { writableWorkspace } from "@/lib/workspaces/suspension.ts";
import { batchesOf, commitBatch } from "./commit.ts";
import type { ImportFormat } from "./formats.ts";
import { type BadRow, type Mapping, readImport } from "./rows.ts";

/** Rows between two progress reports. */
export const PROGRESS_EVERY = 1000;

/** What an import did. `skipped` counts rows imported before and bad rows. */
export interface ImportResult {
  imported: number;
  skipped: number;
  bad_rows: BadRow[];
  mapping: Mapping;
}

/** How to import a file. */
export interface ImportOptions {
  format: ImportFormat;
  text: string;
  /** Who imports, for the audit log (`cli`, `user:<email>`). */
  actor: string;
  ip?: string | null;
  /** Called after every PROGRESS_EVERY rows (and at the end) with rows done and total. */
  onProgress?: (done: number, total: number) => void;
}

/** Imports `opts.text` into `form`'s live submissions (see the module doc). */
export async function importFile(
  deps: Deps,
  form: Form,
  opts: ImportOptions,
): Promise<ImportResult> {
  await writableWorkspace(deps, form.workspace_id);
  const parsed = readImport(deps.secret, form, opts.format, opts.text, deps.now());
  const rows = parsed.rows
    .map((r, i) => ({ r, i, t: Date.parse(r.created_at) }))
    .sort((a, b) => a.t - b.t || a.i - b.i)
    .map((x) => x.r);
  const total = rows.length + parsed.bad.length;
  let done = parsed.bad.length;
  let imported = 0;
  let skipped = parsed.bad.length;
  let reported = 0;
  for (const batch of batchesOf(form.id, rows)) {
    const r = await commitBatch(deps, form, batch);
    imported += r.imported;
    skipped += r.skipped;
    done += batch.length;
    if (opts.onProgress && Math.floor(done / PROGRESS_EVERY) > reported) {
      reported = Math.floor(done / PROGRESS_EVERY);
      opts.onProgress(done, total);
    }
  }
  if (imported > 0) {
    await audit(deps, {
      workspaceId: form.workspace_id,
      action: "submissions.imported",
      actor: opts.actor,
      ip: opts.ip ?? null,
      details: { form: form.id, format: opts.format, imported, skipped },
    });
  }
  return { imported, skipped, bad_rows: parsed.bad, mapping: parsed.mapping };
}
