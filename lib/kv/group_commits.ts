/**
 * Group commit of independent writes: writes that read nothing of each other (a new
 * upload grant, say) queue while a commit is in flight and go out together in one atomic
 * operation, within KV's checks and bytes per operation. A group whose commit fails is
 * committed again one write at a time, so one write's conflict or error never fails
 * another's.
 * @module
 */
import { Batcher, CommitBudget, maxChecks, type Split } from "./batcher.ts";
import { commitWithRetry, withKvRetry } from "./kv.ts";
import type { GroupCommitter, GroupWrite } from "./types.ts";

interface Pending {
  write: GroupWrite;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** Per-process group commit of independent writes; one per composition root. */
export class GroupCommits implements GroupCommitter {
  #queue = new Batcher<Pending>({
    take: (pending) => take(pending, maxChecks(this.#kv)),
    run: (batch) => this.#run(batch),
    failed: (batch, err) => batch.forEach((p) => p.reject(err)),
  });
  #kv: Deno.Kv;
  /** Commits made and writes settled, for tests and benchmarks. */
  readonly stats = { commits: 0, writes: 0 };

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /** Resolves once `write` is committed; rejects when it cannot be (its own conflict). */
  commit(write: GroupWrite): Promise<void> {
    return new Promise((resolve, reject) => this.#queue.push({ write, resolve, reject }));
  }

  async #run(batch: Pending[]): Promise<void> {
    if (await this.#together(batch)) {
      this.stats.commits++;
      this.#settled(batch);
      return;
    }
    // Some write's check failed, or a write was refused: each goes alone, with the usual
    // bounded retry, and only its own failure rejects it.
    await Promise.all(batch.map(async (p) => {
      try {
        await commitWithRetry(this.#kv, (op) => {
          p.write.apply(op);
          return Promise.resolve(true);
        });
        this.stats.commits++;
        this.#settled([p]);
      } catch (err) {
        p.reject(err);
      }
    }));
  }

  /** Whether the whole batch committed in one operation (false on any failure). */
  async #together(batch: Pending[]): Promise<boolean> {
    try {
      const op = this.#kv.atomic();
      for (const p of batch) p.write.apply(op);
      return (await withKvRetry(() => op.commit())).ok;
    } catch {
      return false;
    }
  }

  #settled(batch: Pending[]): void {
    this.stats.writes += batch.length;
    for (const p of batch) p.resolve();
  }
}

/** Takes queued writes, in order, while they fit one operation's checks and bytes. */
function take(pending: Pending[], checks: number): Split<Pending> {
  const budget = new CommitBudget({ checks });
  let n = 0;
  for (const p of pending) {
    if (!budget.fits(p.write.checks, p.write.bytes)) break;
    budget.add(p.write.checks, p.write.bytes);
    n++;
  }
  return { batch: pending.slice(0, n), rest: pending.slice(n) };
}
