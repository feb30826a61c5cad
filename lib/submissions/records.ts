/**
 * A stored submission is two keys: its record, written once by the storing commit (only
 * privacy work rewrites it), and, once the post-commit job scored it or an admin
 * re-labelled it, its verdict: status, `spam` and `scored_at`, which override the record's.
 * So a verdict writes a small key instead of the whole record again. Every read that
 * shows a submission or depends on its status goes through here and sees the two merged;
 * reads that need only its files or its existence read the record alone.
 * @module
 */
import { keys } from "@/lib/kv/keys.ts";
import { getManyChunked, withKvRetry } from "@/lib/kv/kv.ts";
import type { Submission } from "@/lib/schemas.ts";

/** What a verdict key holds. */
export type StoredVerdict = Pick<Submission, "status" | "spam" | "scored_at">;

/** A submission's two entries (for a commit's checks) and the merged submission. */
export interface SubmissionEntries {
  record: Deno.KvEntryMaybe<Submission>;
  verdict: Deno.KvEntryMaybe<StoredVerdict>;
  /** Null when the record is gone. */
  value: Submission | null;
}

/** The record with its verdict (when there is one) applied. */
export function withVerdict(record: Submission, verdict: StoredVerdict | null): Submission {
  if (!verdict) return record;
  const s: Submission = { ...record, status: verdict.status };
  if (verdict.spam) s.spam = verdict.spam;
  else delete s.spam;
  if (verdict.scored_at) s.scored_at = verdict.scored_at;
  else delete s.scored_at;
  return s;
}

/** The verdict part of a (merged) submission, as its verdict key stores it. */
export function verdictOf(s: Submission): StoredVerdict {
  const v: StoredVerdict = { status: s.status };
  if (s.spam) v.spam = s.spam;
  if (s.scored_at) v.scored_at = s.scored_at;
  return v;
}

/** Sets a submission's verdict in `op` (the record stays as stored). */
export function setVerdict(op: Deno.AtomicOperation, s: Submission): void {
  op.set(keys.submissionVerdict(s.form_id, s.id), verdictOf(s));
}

/** The entries of `formId`'s submissions `ids`, in order (two keys each, chunked reads). */
export async function readEntries(
  kv: Deno.Kv,
  formId: string,
  ids: string[],
): Promise<SubmissionEntries[]> {
  return await readEntriesOf(kv, ids.map((id) => ({ formId, id })));
}

/** Like readEntries, for submissions of several forms. */
export async function readEntriesOf(
  kv: Deno.Kv,
  refs: { formId: string; id: string }[],
): Promise<SubmissionEntries[]> {
  const wanted = refs.flatMap(({ formId, id }) => [
    keys.submission(formId, id),
    keys.submissionVerdict(formId, id),
  ]);
  return pairs(await getManyChunked<unknown>(kv, wanted));
}

/** Turns [record, verdict, record, verdict, ...] entries into SubmissionEntries. */
export function pairs(entries: Deno.KvEntryMaybe<unknown>[]): SubmissionEntries[] {
  const out: SubmissionEntries[] = [];
  for (let i = 0; i < entries.length; i += 2) {
    const record = entries[i] as Deno.KvEntryMaybe<Submission>;
    const verdict = entries[i + 1] as Deno.KvEntryMaybe<StoredVerdict>;
    out.push({
      record,
      verdict,
      value: record.value ? withVerdict(record.value, verdict.value) : null,
    });
  }
  return out;
}

/** `formId`'s submissions `ids`, in order, null where gone. */
export async function readSubmissions(
  kv: Deno.Kv,
  formId: string,
  ids: string[],
): Promise<(Submission | null)[]> {
  return (await readEntries(kv, formId, ids)).map((e) => e.value);
}

/** One submission, or null. */
export async function readSubmission(
  kv: Deno.Kv,
  formId: string,
  id: string,
): Promise<Submission | null> {
  const entries = await withKvRetry(() =>
    kv.getMany<unknown[]>([keys.submission(formId, id), keys.submissionVerdict(formId, id)])
  );
  return pairs(entries)[0].value;
}
