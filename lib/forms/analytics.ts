/**
 * Form analytics: per form, mode, UTC day and kind, one KvU64 counter each. Views and
 * starts come from the public events endpoint (one `sum` in the same commit as the
 * caller's rate-limit spend); submissions are counted by submit in its own commit.
 * @module
 */
import { z } from "zod";
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { keys, type Mode } from "@/lib/kv/keys.ts";
import { u64Delta, u64Value, utcDay, withKvRetry } from "@/lib/kv/kv.ts";
import { commitSpending } from "@/lib/ratelimit/budgets.ts";
import { planOf } from "@/lib/workspaces/plans.ts";
import { limitId, type LimitSpend, planSpends } from "@/lib/ratelimit/rate_limit.ts";
import type { Form, Workspace } from "@/lib/schemas.ts";
import { type DraftAnalytics, draftAnalytics } from "@/lib/drafts/summary.ts";

/** The counter kind of each event type (and of submissions, written by submit). */
export const EVENT_KINDS = { view: "views", start: "starts" } as const;
const KINDS = ["views", "starts", "submissions"] as const;
const DAY_MS = 86_400_000;

/** Most steps a `view` event may name (a form's steps are fewer). */
const MAX_STEP = 100;

/**
 * The events body (CONTRACT): `{"type": "view"|"start", "session_id"?: string, "step"?: n}`;
 * `step` (1-based position of the step shown) only on a `view`.
 */
export const eventBodySchema = z.object({
  type: z.enum(["view", "start"]),
  session_id: z.string().min(1).max(128).optional(),
  step: z.number().int().min(1).max(MAX_STEP).optional(),
}).strict().refine((e) => e.step === undefined || e.type === "view", {
  message: "only a view event carries a step",
  path: ["step"],
});
/** A parsed event. */
export type EventBody = z.infer<typeof eventBodySchema>;

/** The counter kind of the step at 1-based `position`. */
function stepKind(position: number): string {
  return `step_${position}`;
}

/**
 * Counts one event: the rate-limit spend and the counter `sum`s go in ONE commit, so a
 * refused event counts nothing and a counted one was paid for. With a `session_id`, a
 * session's view (or start) counts once per form and UTC day; a repeat is accepted and
 * paid for but not counted. A view naming one of the form's steps also counts that step
 * reached, once per session and day as well (a step the form does not have is not
 * counted). Returns whether the view or start counted; throws 429 when refused.
 */
export async function recordEvent(
  deps: Pick<Deps, "kv" | "now" | "entryLocks">,
  input: {
    form: Form;
    mode: Mode;
    type: EventBody["type"];
    sessionId?: string;
    /** The 1-based position of the step a `view` shows. */
    step?: number;
    spend: LimitSpend;
  },
): Promise<boolean> {
  const kinds: string[] = [EVENT_KINDS[input.type]];
  const step = input.step;
  if (input.type === "view" && step !== undefined && step <= stepCount(input.form)) {
    kinds.push(stepKind(step));
  }
  const budget = limitId(input.spend);
  return await commitSpending(deps, [budget], async (op, known) => {
    const day = utcDay(deps.now());
    const session = input.sessionId;
    const markers = session
      ? await withKvRetry(() =>
        deps.kv.getMany<boolean[]>(
          kinds.map((k) => keys.analyticsSession(input.form.id, day, k, session)),
        )
      )
      : null;
    const plan = await planSpends(deps, [input.spend], op, known);
    if (!plan.allowed[0]) throw errors.rateLimited();
    const counted = kinds.map((kind, i) => {
      const marker = markers?.[i];
      const counts = !marker?.value;
      if (marker) {
        // The marker's key holds the day, so its (lazy) expiry is only housekeeping.
        op.check(marker);
        if (counts) op.set(marker.key, true, { expireIn: 2 * DAY_MS });
      }
      if (counts) op.sum(keys.analytics(input.form.id, input.mode, day, kind), u64Delta(1).value);
      return counts;
    });
    return { plan, result: counted[0] };
  });
}

/** How many steps a form has (0: a one-page form). */
function stepCount(form: Form): number {
  return form.steps?.length ?? 0;
}

/** One day of the `daily` series. */
export interface DailyAnalytics {
  date: string;
  views: number;
  starts: number;
  submissions: number;
}

/** How many visitors reached one step of a form (CONTRACT "Form logic and languages"). */
export interface StepReach {
  /** The step's 1-based position. */
  step: number;
  /** Distinct sessions that were shown the step (each counted once a day). */
  reached: number;
}

/** The analytics record of CONTRACT, with where visitors stop (live drafts). */
export interface FormAnalytics extends DraftAnalytics {
  views: number;
  starts: number;
  submissions: number;
  /** {@linkcode completionRate}: submissions / starts, or null when not measurable. */
  completion_rate: number | null;
  from: string;
  to: string;
  retention_days: number;
  daily: DailyAnalytics[];
  /** Present when the form has steps: one entry per step, in order. */
  steps?: StepReach[];
}

/**
 * The one completion rate, shown alike by the API and the admin: submissions / starts over
 * the same window, 4 decimals. Null when it cannot be measured: no starts, or more
 * submissions than starts (some came from pages or servers that send no start event, so no
 * share of them can be told).
 */
export function completionRate(submissions: number, starts: number): number | null {
  if (starts <= 0 || submissions > starts) return null;
  return Math.round((submissions / starts) * 10_000) / 10_000;
}

/** A completion rate as the admin shows it: "75%", "83.3%", or "—" when not measurable. */
export function completionLabel(rate: number | null): string {
  if (rate === null) return "—";
  return `${Math.round(rate * 1000) / 10}%`;
}

/**
 * A form's analytics in one mode over the plan's retention window: the last
 * `retention_days` UTC days including today, with a zero-filled `daily` series, oldest
 * day first.
 */
export async function formAnalytics(
  deps: Pick<Deps, "kv" | "now">,
  form: Form,
  workspace: Workspace,
  mode: Mode,
): Promise<FormAnalytics> {
  const days = planOf(workspace.plan).analyticsRetentionDays;
  const now = deps.now();
  const to = utcDay(now);
  const from = utcDay(now - (days - 1) * DAY_MS);
  const byDay = new Map<string, DailyAnalytics>();
  const reached = Array.from({ length: stepCount(form) }, () => 0);
  for (let t = Date.parse(from); t <= Date.parse(to); t += DAY_MS) {
    const date = utcDay(t);
    byDay.set(date, { date, views: 0, starts: 0, submissions: 0 });
  }
  const prefix = keys.analyticsOf(form.id, mode);
  const iter = deps.kv.list({ prefix, start: [...prefix, from] }, { batchSize: 500 });
  for await (const e of iter) {
    const [day, kind] = e.key.slice(prefix.length) as [string, string];
    const slot = byDay.get(day);
    if (!slot) continue;
    const step = /^step_(\d+)$/.exec(kind);
    if (step) {
      const i = Number(step[1]) - 1;
      if (i < reached.length) reached[i] += u64Value(e.value);
      continue;
    }
    if (!(KINDS as readonly string[]).includes(kind)) continue;
    slot[kind as typeof KINDS[number]] += u64Value(e.value);
  }
  const daily = [...byDay.values()];
  const sum = (k: typeof KINDS[number]) => daily.reduce((n, d) => n + d[k], 0);
  const views = sum("views");
  const starts = sum("starts");
  const submissions = sum("submissions");
  return {
    views,
    starts,
    submissions,
    completion_rate: completionRate(submissions, starts),
    from,
    to,
    retention_days: days,
    daily,
    ...(reached.length ? { steps: reached.map((n, i) => ({ step: i + 1, reached: n })) } : {}),
    ...await draftAnalytics(deps, form, mode),
  };
}
