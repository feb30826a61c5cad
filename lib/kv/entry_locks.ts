/**
 * Locks on the KV entries this process's commits check, and each entry as this process last
 * read or left it (by JSON-encoded key). Two commits in flight at once that check one entry
 * would fail each other's checks (one key submitting to many forms spends one rate-limit
 * budget; one workspace's forms append to one feed head), so a committer holds the entries'
 * locks from read to commit and they take turns; the entry its commit left is remembered,
 * so the next committer need not read it. Only another process can still move an entry: the
 * next commit's check fails, and the committer forgets the entry and reads it afresh.
 * Holders: the submission writer (budgets, feed heads, webhook listeners) and rate-limit
 * spends (ratelimit/budgets.ts).
 * @module
 */
import type { EntryLocks } from "./types.ts";

/** Entries remembered at most (one per active sender; forgotten all at once). */
const MAX_REMEMBERED = 10_000;

/** This process's entry locks and last-known entries (see the module's note). */
export class EntryLockTable implements EntryLocks {
  #tails = new Map<string, Promise<void>>();
  #known = new Map<string, Deno.KvEntryMaybe<unknown>>();

  /**
   * Waits until every entry named is free and holds them all; returns the function that
   * releases them. Names are taken in sorted order, so holders never deadlock.
   */
  async acquire(ids: Iterable<string>): Promise<() => void> {
    const releases: (() => void)[] = [];
    for (const id of [...new Set(ids)].sort()) {
      const before = this.#tails.get(id);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      this.#tails.set(id, held);
      releases.push(() => {
        release();
        // The last holder leaves no entry behind.
        if (this.#tails.get(id) === held) this.#tails.delete(id);
      });
      if (before) await before;
    }
    return () => releases.forEach((r) => r());
  }

  /** The entry this process last read or left at `id`, if it still holds it. */
  known(id: string): Deno.KvEntryMaybe<unknown> | undefined {
    return this.#known.get(id);
  }

  /** Keeps entries just read or written (under their locks). */
  learn(entries: Iterable<[string, Deno.KvEntryMaybe<unknown>]>): void {
    if (this.#known.size > MAX_REMEMBERED) this.#known.clear();
    for (const [id, entry] of entries) this.#known.set(id, entry);
  }

  /** Forgets entries another process may have moved (after a failed check). */
  forget(ids: Iterable<string>): void {
    for (const id of ids) this.#known.delete(id);
  }

  /** Entries locked or waited for (for tests: none once every holder is done). */
  get locked(): number {
    return this.#tails.size;
  }
}
