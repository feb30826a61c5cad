/**
 * Bulk-writes synthetic submissions with exact indexes (number, status, email) and
 * counters, for benchmarks and tests that need a big form fast (100,000 submissions in
 * seconds, not one submit each).
 * Never used by request paths: it skips validation, quota and rate limits on purpose.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { newId } from "@/lib/ids.ts";
import { keys, type Mode } from "@/lib/kv/keys.ts";
import { commitWithRetry, withKvRetry } from "@/lib/kv/kv.ts";
import type { Form, Status, Submission } from "@/lib/schemas.ts";
import { CounterDeltas, indexCreated } from "@/lib/submissions/indexes.ts";
import { markOf } from "@/lib/protection/score_context.ts";
import { CommitBudget } from "@/lib/kv/batcher.ts";
import { searchCost } from "@/lib/search/entries.ts";
import { addEmailIndex } from "@/lib/privacy/email_index.ts";

/** Per-submission choices; every one optional. `i` counts from 0 in write order. */
export interface SeedOptions {
  mode?: Mode;
  /** Status of the i-th submission (default `completed`). */
  status?: (i: number) => Status;
  /** Creation time (epoch ms) of the i-th; should not decrease with i (default now). */
  createdAt?: (i: number) => number;
  /** Field values of the i-th (default a name and an email). */
  fields?: (i: number) => Record<string, unknown>;
  /** Submissions per commit at most (default 150; fewer when KV's limits say so). */
  batch?: number;
}

/**
 * Writes `n` submissions into `form`, numbered after the form's sequence, in batched
 * atomic commits that check the sequence. Returns the ids in write order (oldest first).
 */
export async function seedSubmissions(
  deps: Pick<Deps, "kv" | "now" | "secret">,
  form: Form,
  n: number,
  opts: SeedOptions = {},
): Promise<string[]> {
  const mode = opts.mode ?? "live";
  // Five writes per submission (record, two indexes, one email entry), the commit's
  // counters and its search entries: a batch ends at `batch` submissions or where KV's
  // mutations or key bytes would run out.
  const batch = Math.max(1, Math.min(opts.batch ?? 150, 150));
  const ids: string[] = [];
  for (let done = 0; done < n;) {
    const written = await writeBatch(deps, form, mode, done, Math.min(batch, n - done), opts);
    ids.push(...written);
    done += written.length;
  }
  return ids;
}

async function writeBatch(
  deps: Pick<Deps, "kv" | "now" | "secret">,
  form: Form,
  mode: Mode,
  from: number,
  size: number,
  opts: SeedOptions,
): Promise<string[]> {
  const written = await commitWithRetry(deps.kv, async (op) => {
    const seq = await withKvRetry(() => deps.kv.get<number>(keys.submissionSeq(form.id, mode)));
    op.check(seq);
    const counters = new CounterDeltas();
    const budget = new CommitBudget({ checks: 1 });
    const counted = new Set<string>();
    let number = seq.value ?? 0;
    const ids: string[] = [];
    for (let i = from; i < from + size; i++) {
      const s: Submission = {
        id: newId("sub"),
        form_id: form.id,
        workspace_id: form.workspace_id,
        mode,
        number: number + 1,
        fields: opts.fields?.(i) ?? { name: `Person ${i}`, email: `person${i}@example.com` },
        metadata: {},
        status: opts.status?.(i) ?? "completed",
        created_at: new Date(opts.createdAt?.(i) ?? deps.now()).toISOString(),
        files: [],
        signals: {},
      };
      const search = searchCost(s, counted);
      // Five keys (two email entries at most) and eight counters besides the search entries.
      const cost = { mutations: search.mutations + 14, keyBytes: search.keyBytes + 14 * 160 };
      if (!budget.fits(0, 0, cost)) break;
      budget.add(0, 0, cost);
      for (const c of search.fresh) counted.add(c);
      number++;
      addEmailIndex(op, deps.secret, form, s);
      op.set(keys.submission(form.id, s.id), s);
      indexCreated(op, counters, s, markOf(s));
      ids.push(s.id);
    }
    counters.applyTo(op);
    op.set(keys.submissionSeq(form.id, mode), number);
    return ids;
  }, 50);
  return written!;
}
