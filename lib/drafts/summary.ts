/**
 * Where visitors stop: a form's live drafts (not submitted, not expired) counted, by the
 * furthest step they reached and by the fields they filled; and the paginated list the
 * Server Data API and the admin show (never a token). Drafts come from pages, so they are
 * live data: a test key sees none.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { keys, type Mode } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import { type Pagination, pagination } from "@/lib/http/pagination.ts";
import type { Form } from "@/lib/schemas.ts";
import type { Draft, DraftListItem } from "./types.ts";

/** What analytics add about drafts. */
export interface DraftAnalytics {
  /** Live drafts: started, neither submitted nor expired. */
  drafts: number;
  /** Live drafts by the furthest step reached (1-based position), for forms with steps. */
  draft_steps: { step: number; drafts: number }[];
  /** Live drafts holding a value, by field name: where visitors stop filling in. */
  draft_fields: Record<string, number>;
}

/** A form's live drafts, oldest first (test mode: none). */
async function liveDrafts(deps: Pick<Deps, "kv" | "now">, form: Form, mode: Mode) {
  const out: Draft[] = [];
  if (mode !== "live") return out;
  const now = deps.now();
  await withKvRetry(async () => {
    out.length = 0;
    for await (const e of deps.kv.list<Draft>({ prefix: keys.drafts(form.id) })) {
      if (e.value.due_at > now) out.push(e.value);
    }
  });
  return out;
}

/** The drafts part of a form's analytics. */
export async function draftAnalytics(
  deps: Pick<Deps, "kv" | "now">,
  form: Form,
  mode: Mode,
): Promise<DraftAnalytics> {
  const drafts = await liveDrafts(deps, form, mode);
  const steps = new Map<number, number>();
  const fields: Record<string, number> = {};
  for (const d of drafts) {
    if (d.furthest_step !== null) steps.set(d.furthest_step, (steps.get(d.furthest_step) ?? 0) + 1);
    for (const name of Object.keys(d.data)) fields[name] = (fields[name] ?? 0) + 1;
  }
  return {
    drafts: drafts.length,
    draft_steps: [...steps].sort((a, b) => a[0] - b[0]).map(([step, n]) => ({ step, drafts: n })),
    draft_fields: fields,
  };
}

/** A draft as lists show it (never its token or digests). */
export function draftListItem(d: Draft): DraftListItem {
  return {
    id: d.id,
    data: d.data,
    step: d.step,
    furthest_step: d.furthest_step,
    created_at: d.created_at,
    updated_at: d.updated_at,
    expires_at: new Date(d.due_at).toISOString(),
  };
}

/** A page of a form's live drafts, newest first. */
export async function listDrafts(
  deps: Pick<Deps, "kv" | "now">,
  form: Form,
  mode: Mode,
  q: { page: number; limit: number },
): Promise<{ drafts: DraftListItem[]; pagination: Pagination }> {
  const all = (await liveDrafts(deps, form, mode)).reverse();
  const start = (q.page - 1) * q.limit;
  return {
    drafts: all.slice(start, start + q.limit).map(draftListItem),
    pagination: pagination(q.page, q.limit, all.length),
  };
}

/** One live draft of a form by id, or null. */
export async function getDraft(
  deps: Pick<Deps, "kv" | "now">,
  form: Form,
  id: string,
): Promise<Draft | null> {
  if (!/^drf_[0-9a-z]{26}$/.test(id)) return null;
  const d = (await withKvRetry(() => deps.kv.get<Draft>(keys.draft(form.id, id)))).value;
  return d && d.due_at > deps.now() ? d : null;
}
