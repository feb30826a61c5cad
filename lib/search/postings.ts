/**
 * The search index's postings: one KV entry per token per commit, listing the commit's
 * submissions holding that token (`keys.word(form, mode, token, first)`, `first` being the
 * smallest number listed). A group never spans two blocks of GROUP_BLOCK numbers, so the
 * group holding submission `n` is among the few keys from its block's start to `n`.
 *
 * A group's value packs, per submission in number order, three unsigned LEB128 varints:
 * the number's offset from `first`, its UTC day, and `status * 128 + shared` (`shared`: the
 * characters the token shares with the submission's previous token). About 6 bytes a
 * submission; a commit's group stays far below KV's 64 KiB value limit.
 *
 * New submissions add groups without a read (a new key per commit). A delete or status
 * change rewrites the group holding the submission (`GroupRewrites`): its caller reads the
 * form's edit stamp first and checks it, and every rewrite sets that stamp, so two rewrites
 * of one group never both commit.
 * @module
 */
import { keys, type Mode } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import { type Status, STATUSES, type Submission } from "@/lib/schemas.ts";
import { GROUP_BLOCK, searchEntriesOf } from "./entries.ts";

const SHARED_BITS = 128;
const DAY_MS = 86_400_000;

/** One submission in a group. */
export interface Posting {
  n: number;
  day: number;
  status: Status;
  shared: number;
}

/** The UTC day number (days since 1970-01-01) of an ISO timestamp. */
export function dayOfTimestamp(createdAt: string): number {
  return Math.floor(Date.parse(createdAt) / DAY_MS);
}

/** The UTC day number of `YYYY-MM-DD`. */
export function dayNumber(day: string): number {
  return dayOfTimestamp(`${day}T00:00:00Z`);
}

/** The first number of `n`'s block. */
export function blockStart(n: number): number {
  return n - (n % GROUP_BLOCK);
}

/** Packs postings (sorted by number, all at or after `first`) as a group's value. */
export function packGroup(first: number, postings: Posting[]): Uint8Array {
  const out: number[] = [];
  const put = (v: number) => {
    while (v >= 0x80) {
      out.push((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    out.push(v);
  };
  for (const p of postings) {
    put(p.n - first);
    put(p.day);
    put(STATUSES.indexOf(p.status) * SHARED_BITS + p.shared);
  }
  return new Uint8Array(out);
}

/** A group's postings, in number order. */
export function unpackGroup(first: number, value: unknown): Posting[] {
  if (!(value instanceof Uint8Array)) return [];
  const out: Posting[] = [];
  let i = 0;
  const get = () => {
    let v = 0;
    let scale = 1;
    while (i < value.length) {
      const b = value[i++];
      v += (b & 0x7f) * scale;
      if (b < 0x80) break;
      scale *= 0x80;
    }
    return v;
  };
  while (i < value.length) {
    const n = first + get();
    const day = get();
    const code = get();
    out.push({
      n,
      day,
      status: STATUSES[Math.floor(code / SHARED_BITS)] ?? "completed",
      shared: code % SHARED_BITS,
    });
  }
  return out;
}

/** Postings of a submission being stored, per token (for `NewGroups`). */
function postingsOf(s: Submission, status: Status = s.status): [string, Posting][] {
  const { tokens, shared } = searchEntriesOf(s);
  const day = dayOfTimestamp(s.created_at);
  return tokens.map((t, i) => [t, { n: s.number, day, status, shared: shared[i] }]);
}

/** Groups being written by one commit: one per form, mode, token and block. */
export class NewGroups {
  #groups = new Map<string, { formId: string; mode: Mode; token: string; list: Posting[] }>();

  /** Lists a new submission under each of its tokens. */
  add(s: Submission): void {
    for (const [token, p] of postingsOf(s)) {
      const id = `${s.form_id}\0${s.mode}\0${token}\0${blockStart(p.n)}`;
      const g = this.#groups.get(id);
      if (g) g.list.push(p);
      else this.#groups.set(id, { formId: s.form_id, mode: s.mode, token, list: [p] });
    }
  }

  /** Sets the groups (each a new key: its first number is new). */
  applyTo(op: Deno.AtomicOperation): void {
    for (const { formId, mode, token, list } of this.#groups.values()) {
      list.sort((a, b) => a.n - b.n);
      op.set(keys.word(formId, mode, token, list[0].n), packGroup(list[0].n, list));
    }
  }
}

/** A group read from KV. */
interface LoadedGroup {
  key: Deno.KvKey;
  first: number;
  postings: Posting[];
}

/** What happens to a stored submission: removed, or re-labelled. */
interface Rewrite {
  s: Submission;
  to: Status | null;
}

/**
 * Rewrites of existing groups by one commit (deletes and status changes). Record them, then
 * `load` (reads the groups holding the submissions), then `applyTo` (sets or deletes the
 * changed groups); the caller checks the form's edit stamp, read before `load`.
 */
export class GroupRewrites {
  #rewrites = new Map<string, Rewrite>();
  /** `form NUL mode NUL token NUL n` -> the group holding it (after `load`). */
  #holder = new Map<string, LoadedGroup | null>();

  /** Removes a submission from its groups. */
  remove(s: Submission): void {
    this.#rewrites.set(`${s.form_id}\0${s.mode}\0${s.number}`, { s, to: null });
  }

  /** Gives a submission a new status in its groups. */
  restatus(s: Submission, to: Status): void {
    this.#rewrites.set(`${s.form_id}\0${s.mode}\0${s.number}`, { s, to });
  }

  /** Whether any rewrite is recorded. */
  get pending(): boolean {
    return this.#rewrites.size > 0;
  }

  /** The forms and modes rewritten (their edit stamps are checked and set). */
  scopes(): [string, Mode][] {
    const out = new Map<string, [string, Mode]>();
    for (const { s } of this.#rewrites.values()) {
      out.set(`${s.form_id}\0${s.mode}`, [s.form_id, s.mode]);
    }
    return [...out.values()];
  }

  /** Reads the group holding each recorded submission under each of its tokens. */
  async load(kv: Deno.Kv): Promise<void> {
    // Per token, numbers found one after the other (a group found serves its neighbours).
    const byToken = new Map<string, { formId: string; mode: Mode; token: string; ns: number[] }>();
    for (const { s } of this.#rewrites.values()) {
      for (const token of searchEntriesOf(s).tokens) {
        if (this.#holder.has(`${s.form_id}\0${s.mode}\0${token}\0${s.number}`)) continue;
        const id = `${s.form_id}\0${s.mode}\0${token}`;
        const t = byToken.get(id) ?? { formId: s.form_id, mode: s.mode, token, ns: [] };
        t.ns.push(s.number);
        byToken.set(id, t);
      }
    }
    await Promise.all([...byToken.values()].map(async ({ formId, mode, token, ns }) => {
      const seen: LoadedGroup[] = [];
      for (const n of ns.sort((a, b) => b - a)) {
        const id = `${formId}\0${mode}\0${token}\0${n}`;
        let found = seen.find((g) => g.postings.some((p) => p.n === n)) ?? null;
        if (!found) found = await findGroup(kv, formId, mode, token, n, seen);
        this.#holder.set(id, found);
      }
    }));
  }

  /** Writes the changed groups; throws if `load` has not read them. */
  applyTo(op: Deno.AtomicOperation): void {
    const changed = new Map<string, { g: LoadedGroup; postings: Posting[] }>();
    for (const { s, to } of this.#rewrites.values()) {
      for (const token of searchEntriesOf(s).tokens) {
        const id = `${s.form_id}\0${s.mode}\0${token}\0${s.number}`;
        if (!this.#holder.has(id)) throw new Error("GroupRewrites.applyTo before load");
        const g = this.#holder.get(id);
        if (!g) continue; // Not indexed (a rebuild restores it).
        const gid = JSON.stringify(g.key);
        const c = changed.get(gid) ?? { g, postings: [...g.postings] };
        changed.set(gid, c);
        const i = c.postings.findIndex((p) => p.n === s.number);
        if (i < 0) continue;
        if (to === null) c.postings.splice(i, 1);
        else c.postings[i] = { ...c.postings[i], status: to };
      }
    }
    for (const { g, postings } of changed.values()) {
      if (postings.length) op.set(g.key, packGroup(g.first, postings));
      else op.delete(g.key);
    }
  }
}

/** The group of `token` holding `n` (newest group first from `n` back to its block's start). */
async function findGroup(
  kv: Deno.Kv,
  formId: string,
  mode: Mode,
  token: string,
  n: number,
  seen: LoadedGroup[],
): Promise<LoadedGroup | null> {
  const prefix = [...keys.words(formId, mode), token];
  return await withKvRetry(async () => {
    const iter = kv.list({ start: [...prefix, blockStart(n)], end: [...prefix, n + 1] }, {
      reverse: true,
      batchSize: 4,
    });
    for await (const e of iter) {
      const first = e.key[4] as number;
      if (seen.some((g) => g.first === first)) continue;
      const g = { key: e.key, first, postings: unpackGroup(first, e.value) };
      seen.push(g);
      if (g.postings.some((p) => p.n === n)) return g;
    }
    return null;
  });
}
