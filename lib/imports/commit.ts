/**
 * Writing imported rows: each batch of rows becomes submissions in ONE atomic commit with
 * everything a submitted one gets (record, number and status indexes with its scoring
 * mark, counters by its original day, the email index, the search entries) and each row's
 * import mark, so a
 * crash leaves whole batches only and a re-run skips what is marked. Numbers come from the
 * form's sequence, which the commit checks: imports and live submissions interleave
 * safely. Imported rows count toward no monthly quota and notify no one (they are history;
 * docs/decisions/importers.md).
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { submissionIdAt } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";
import { commitWithRetry, getManyChunked, withKvRetry } from "@/lib/kv/kv.ts";
import { addEmailIndex } from "@/lib/privacy/email_index.ts";
import { privateWho, storedSignals } from "@/lib/privacy/ip.ts";
import { markOf } from "@/lib/protection/score_context.ts";
import type { Form, Submission } from "@/lib/schemas.ts";
import { CounterDeltas, indexCreated } from "@/lib/submissions/indexes.ts";
import type { ImportRow } from "./rows.ts";
import { CommitBudget } from "@/lib/kv/batcher.ts";
import { searchCost } from "@/lib/search/entries.ts";

/** Rows one commit holds at most. */
export const BATCH_ROWS = 50;
/** Stored bytes one commit holds at most (KV takes 800 KiB of mutations). */
const BATCH_BYTES = 400 * 1024;
/**
 * Keys a row writes beside its search entries, at most: record, two indexes, its mark, up
 * to 8 email entries, 3 day counters.
 */
const ROW_KEYS = 15;
/** An id of a submission's length, to cost a row's search entries before it has one. */
const ID_SHAPE = `sub_${"0".repeat(26)}`;

/**
 * Splits rows into the batches one commit each holds: at most BATCH_ROWS, BATCH_BYTES and
 * KV's mutations and key bytes (each row's search entries counted, kv/batcher.ts).
 */
export function batchesOf(formId: string, rows: ImportRow[]): ImportRow[][] {
  const out: ImportRow[][] = [];
  let cur: ImportRow[] = [];
  let budget = new CommitBudget({ items: BATCH_ROWS, bytes: BATCH_BYTES, checks: 1 });
  let counted = new Set<string>();
  for (const r of rows) {
    const size = JSON.stringify(r.fields).length * 2 + JSON.stringify(r.metadata).length * 2 +
      1024;
    let search = searchCost({ id: ID_SHAPE, fields: r.fields, form_id: formId }, counted);
    const cost = () => ({
      mutations: search.mutations + ROW_KEYS,
      keyBytes: search.keyBytes + ROW_KEYS * 160,
    });
    if (!budget.fits(0, size, cost())) {
      out.push(cur);
      cur = [];
      budget = new CommitBudget({ items: BATCH_ROWS, bytes: BATCH_BYTES, checks: 1 });
      counted = new Set();
      search = searchCost({ id: ID_SHAPE, fields: r.fields, form_id: formId }, counted);
    }
    cur.push(r);
    budget.add(0, size, cost());
    for (const c of search.fresh) counted.add(c);
  }
  if (cur.length) out.push(cur);
  return out;
}

/** Imports one batch into `form`'s live submissions: how many were new, how many marked. */
export async function commitBatch(
  deps: Pick<Deps, "kv" | "now" | "secret">,
  form: Form,
  rows: ImportRow[],
): Promise<{ imported: number; skipped: number }> {
  const seqKey = keys.submissionSeq(form.id, "live");
  const result = await commitWithRetry(deps.kv, async (op) => {
    // The sequence first: every commit writing marks moves it, so one after this read
    // fails the check, and one before it is seen by the marks read next.
    const seq = await withKvRetry(() => deps.kv.get<number>(seqKey));
    const marks = await getManyChunked(
      deps.kv,
      rows.map((r) => keys.importedRow(form.id, r.digest)),
    );
    const todo = rows.filter((_, i) => marks[i].versionstamp === null);
    if (!todo.length) return { imported: 0, skipped: rows.length };
    op.check(seq);
    const counters = new CounterDeltas();
    const scoredAt = new Date(deps.now()).toISOString();
    let number = seq.value ?? 0;
    for (const r of todo) {
      const sub: Submission = {
        id: submissionIdAt(Date.parse(r.created_at)),
        form_id: form.id,
        workspace_id: form.workspace_id,
        mode: "live",
        number: ++number,
        fields: r.fields,
        metadata: r.metadata,
        status: r.status,
        created_at: r.created_at,
        files: [],
        signals: {},
        scored_at: scoredAt,
      };
      if (r.status !== "completed") {
        sub.spam = { score: 0, reasons: ["imported"], scored_at: scoredAt, manual: true };
      }
      const mark = markOf({ ...sub, signals: r.signals });
      mark.who = privateWho(deps.secret, mark.who);
      sub.signals = storedSignals(form, r.signals);
      addEmailIndex(op, deps.secret, form, sub);
      op.set(keys.submission(form.id, sub.id), sub);
      indexCreated(op, counters, sub, mark);
      op.set(keys.importedRow(form.id, r.digest), sub.id);
    }
    counters.applyTo(op);
    op.set(seqKey, number);
    return { imported: todo.length, skipped: rows.length - todo.length };
  });
  return result!;
}
