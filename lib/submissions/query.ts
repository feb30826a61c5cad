/**
 * Reading submissions for the Server Data API. Totals come from the exact counters, and
 * the newest-first page walk skips whole blocks of numbers by their block counters, so
 * page 50 costs about what page 1 costs. `search` reads the search index (lib/search):
 * every match, with an exact `total`.
 * @module
 */
import { z } from "zod";
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { keys, type Mode, type StatusBucket } from "@/lib/kv/keys.ts";
import { getManyChunked, u64Value, utcDay, withKvRetry } from "@/lib/kv/kv.ts";
import { dayNumber } from "@/lib/search/postings.ts";
import { searchIndex } from "@/lib/search/query.ts";
import {
  MAX_QUERY_LENGTH,
  MAX_QUERY_WORDS,
  searchProblem,
  searchTerms,
} from "@/lib/search/terms.ts";
import { pageQuerySchema, type Pagination, pagination } from "@/lib/http/pagination.ts";
import { type Form, STATUSES, type Submission } from "@/lib/schemas.ts";
import { BLOCK_SIZE, indexedId } from "./indexes.ts";
import { readSubmission, readSubmissions } from "./records.ts";

/** `range` values: the last N UTC days including today, or everything. */
export const RANGES = { all: 0, "7d": 7, "30d": 30, "90d": 90 } as const;

/** Query of `GET /api/v1/server/forms/:id/submissions`. */
export const submissionListQuerySchema = pageQuerySchema.extend({
  status: z.enum(STATUSES).optional(),
  search: z.string().trim().superRefine((v, ctx) => {
    const problem = searchProblem(v);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  }).optional().describe(
    "Words each matched at a word's start in field values, the submission id or an email " +
      `address (at most ${MAX_QUERY_LENGTH} characters, ${MAX_QUERY_WORDS} words).`,
  ),
  range: z.enum(Object.keys(RANGES) as [keyof typeof RANGES]).default("all"),
});
/** A parsed submissions-list query. */
export type SubmissionListQuery = z.output<typeof submissionListQuerySchema>;

/** A submission as API clients see it: never signals, spam details, workspace or mode. */
export interface PublicSubmission {
  id: string;
  form_id: string;
  fields: Record<string, unknown>;
  metadata: Record<string, unknown>;
  status: Submission["status"];
  created_at: string;
  submission_number: number;
  files?: { path: string; field?: string; [k: string]: unknown }[];
}

/** The public view of a stored submission (CONTRACT "One resource"). */
export function submissionView(s: Submission): PublicSubmission {
  const view: PublicSubmission = {
    id: s.id,
    form_id: s.form_id,
    fields: s.fields,
    metadata: metadataView(s),
    status: s.status,
    created_at: s.created_at,
    submission_number: s.number,
  };
  if (s.files?.length) view.files = s.files.map((path) => fileRefOf(s.fields, path));
  return view;
}

/**
 * A submission's metadata as shown: the client's, with the server's `scored_at` once a final
 * verdict came after the submission was stored (a second opinion's); a verdict given by the
 * storing commit shows none, since the status was final from the start. A client's own
 * `scored_at` is never shown.
 */
export function metadataView(s: Submission): Record<string, unknown> {
  const later = s.scored_at && s.scored_at !== s.created_at ? s.scored_at : null;
  if (!("scored_at" in s.metadata)) {
    return later ? { ...s.metadata, scored_at: later } : s.metadata;
  }
  const { scored_at: _client, ...rest } = s.metadata;
  return later ? { ...rest, scored_at: later } : rest;
}

/** The file reference a field holds for `path`, with the field's name; `{path}` if none. */
function fileRefOf(fields: Record<string, unknown>, path: string): {
  path: string;
  field?: string;
} {
  for (const [name, value] of Object.entries(fields)) {
    for (const v of Array.isArray(value) ? value : [value]) {
      if (v && typeof v === "object" && (v as { path?: unknown }).path === path) {
        return { field: name, ...(v as Record<string, unknown>), path };
      }
    }
  }
  return { path };
}

/** Submission ids are `sub_` + a lower-case ULID; nothing else is looked up. */
export function isPlausibleSubmissionId(id: string): boolean {
  return /^sub_[0-9a-z]{26}$/.test(id);
}

/**
 * One submission of `form` in `mode`. Missing, malformed, other-mode and other-form ids
 * are the one `Submission not found.` 404.
 */
export async function requireSubmission(
  deps: Pick<Deps, "kv">,
  form: Form,
  mode: Mode,
  id: string,
): Promise<Submission> {
  const s = isPlausibleSubmissionId(id) ? await readSubmission(deps.kv, form.id, id) : null;
  if (!s || s.mode !== mode || s.form_id !== form.id) {
    throw errors.notFound("Submission not found.");
  }
  return s;
}

/** The first UTC day inside `range` at time `now`, or null for `all`. */
export function rangeStartDay(range: keyof typeof RANGES, now: number): string | null {
  const days = RANGES[range];
  return days ? utcDay(now - (days - 1) * 86_400_000) : null;
}

/** The index a status bucket walks: the number index for "all", else the status index. */
export function indexPrefix(formId: string, mode: Mode, bucket: StatusBucket): Deno.KvKey {
  return bucket === "all"
    ? keys.submissionsByNumber(formId, mode)
    : keys.submissionsByStatus(formId, mode, bucket);
}

/** Submissions of a bucket counted by the counters: all time, or from `fromDay` on. */
async function countBucket(
  kv: Deno.Kv,
  formId: string,
  mode: Mode,
  bucket: StatusBucket,
  fromDay: string | null,
): Promise<number> {
  if (!fromDay) {
    return u64Value(
      (await withKvRetry(() => kv.get(keys.submissionCount(formId, mode, bucket)))).value,
    );
  }
  const prefix = keys.submissionDailies(formId, mode, bucket);
  let total = 0;
  for await (const e of kv.list({ prefix, start: [...prefix, fromDay] })) {
    total += u64Value(e.value);
  }
  return total;
}

/**
 * Ids of the bucket's submissions at newest-first positions `[offset, offset + take)`.
 * Whole blocks are skipped by their counters; inside the landing block a full block (no
 * gaps: every number in it is in the bucket) is entered directly at the right number,
 * otherwise at most one block of index keys is skipped.
 */
async function idsAt(
  kv: Deno.Kv,
  formId: string,
  mode: Mode,
  bucket: StatusBucket,
  offset: number,
  take: number,
): Promise<string[]> {
  const seq = (await withKvRetry(() => kv.get<number>(keys.submissionSeq(formId, mode)))).value ??
    0;
  let before = 0;
  let landing: { block: number; skip: number; count: number } | null = null;
  const blocks = kv.list({ prefix: keys.submissionBlocks(formId, mode, bucket) }, {
    reverse: true,
    batchSize: 32,
  });
  for await (const e of blocks) {
    const count = u64Value(e.value);
    if (before + count > offset) {
      landing = { block: e.key[e.key.length - 1] as number, skip: offset - before, count };
      break;
    }
    before += count;
  }
  if (!landing) return [];
  const prefix = indexPrefix(formId, mode, bucket);
  const low = Math.max(1, landing.block * BLOCK_SIZE);
  const high = Math.min(seq, (landing.block + 1) * BLOCK_SIZE - 1);
  const full = landing.count === high - low + 1;
  const end = full ? high - landing.skip + 1 : (landing.block + 1) * BLOCK_SIZE;
  const skip = full ? 0 : landing.skip;
  const ids: string[] = [];
  let i = 0;
  const iter = kv.list({ prefix, end: [...prefix, end] }, {
    reverse: true,
    limit: skip + take,
    batchSize: Math.min(skip + take, 500),
  });
  for await (const e of iter) if (i++ >= skip) ids.push(indexedId(e.value));
  return ids;
}

/** Loads submissions by id, in the given order, dropping any deleted meanwhile. */
async function loadRecords(kv: Deno.Kv, formId: string, ids: string[]): Promise<Submission[]> {
  return (await readSubmissions(kv, formId, ids)).filter((s): s is Submission => s !== null);
}

/**
 * A page of a form's submissions in one mode, newest first (by submission number, which
 * follows commit order). Without `search`, `total` is the counters' exact figure.
 */
export async function listSubmissions(
  deps: Pick<Deps, "kv" | "now">,
  form: Form,
  mode: Mode,
  q: SubmissionListQuery,
): Promise<{ submissions: PublicSubmission[]; pagination: Pagination }> {
  const bucket: StatusBucket = q.status ?? "all";
  const fromDay = rangeStartDay(q.range, deps.now());
  if (q.search) return await searchSubmissions(deps, form, mode, q, fromDay);
  const total = await countBucket(deps.kv, form.id, mode, bucket, fromDay);
  const offset = (q.page - 1) * q.limit;
  const take = Math.min(q.limit, total - offset);
  const ids = take > 0 ? await idsAt(deps.kv, form.id, mode, bucket, offset, take) : [];
  const records = await loadRecords(deps.kv, form.id, ids);
  const inRange = fromDay ? records.filter((s) => s.created_at >= fromDay) : records;
  return {
    submissions: inRange.map(submissionView),
    pagination: pagination(q.page, q.limit, total),
  };
}

/**
 * `search`: every submission of the bucket and range holding all the query's words, from
 * the search index (lib/search/query.ts); `total` counts every match.
 */
async function searchSubmissions(
  deps: Pick<Deps, "kv">,
  form: Form,
  mode: Mode,
  q: SubmissionListQuery,
  fromDay: string | null,
): Promise<{ submissions: PublicSubmission[]; pagination: Pagination }> {
  const { numbers, total } = await searchIndex(deps.kv, {
    formId: form.id,
    mode,
    terms: searchTerms(q.search!),
    status: q.status,
    fromDay: fromDay ? dayNumber(fromDay) : null,
    offset: (q.page - 1) * q.limit,
    limit: q.limit,
  });
  const marks = await getManyChunked<unknown>(
    deps.kv,
    numbers.map((n) => keys.submissionByNumber(form.id, mode, n)),
  );
  const ids = marks.filter((m) => m.value).map((m) => indexedId(m.value));
  const records = await loadRecords(deps.kv, form.id, ids);
  return {
    submissions: records.map(submissionView),
    pagination: pagination(q.page, q.limit, total),
  };
}
