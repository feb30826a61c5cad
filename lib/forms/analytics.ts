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

/** The counter kind of each event type (and of submissions, written by submit). */
export const EVENT_KINDS = { view: "views", start: "starts" } as const;
const KINDS = ["views", "starts", "submissions"] as const;
const DAY_MS = 86_400_000;

/** The events body (CONTRACT): `{"type": "view"|"start", "session_id"?: string}`. */
export const eventBodySchema = z.object({
  type: z.enum(["view", "start"]),
  session_id: z.string().min(1).max(128).optional(),
}).strict();
/** A parsed event. */
export type EventBody = z.infer<typeof eventBodySchema>;

/**
 * Counts one event: the rate-limit spend and the counter `sum` go in ONE commit, so a
 * refused event counts nothing and a counted one was paid for. With a `session_id`, a
 * session's view (or start) counts once per form and UTC day; a repeat is accepted and
 * paid for but not counted. Returns whether it counted; throws 429 when refused.
 */
export async function recordEvent(
  deps: Pick<Deps, "kv" | "now" | "budgets">,
  input: {
    form: Form;
    mode: Mode;
    type: EventBody["type"];
    sessionId?: string;
    spend: LimitSpend;
  },
): Promise<boolean> {
  const kind = EVENT_KINDS[input.type];
  const budget = limitId(input.spend);
  return await commitSpending(deps, [budget], async (op, known) => {
    const day = utcDay(deps.now());
    const marker = input.sessionId
      ? await withKvRetry(() =>
        deps.kv.get(keys.analyticsSession(input.form.id, day, kind, input.sessionId!))
      )
      : null;
    const plan = await planSpends(deps, [input.spend], op, known);
    if (!plan.allowed[0]) throw errors.rateLimited();
    const counts = !marker?.value;
    if (marker) {
      // The marker's key holds the day, so its (lazy) expiry is only housekeeping.
      op.check(marker);
      if (counts) op.set(marker.key, true, { expireIn: 2 * DAY_MS });
    }
    if (counts) op.sum(keys.analytics(input.form.id, input.mode, day, kind), u64Delta(1).value);
    return { plan, result: counts };
  });
}

/** One day of the `daily` series. */
export interface DailyAnalytics {
  date: string;
  views: number;
  starts: number;
  submissions: number;
}

/** The analytics record of CONTRACT. */
export interface FormAnalytics {
  views: number;
  starts: number;
  submissions: number;
  /** {@linkcode completionRate}: submissions / starts, or null when not measurable. */
  completion_rate: number | null;
  from: string;
  to: string;
  retention_days: number;
  daily: DailyAnalytics[];
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
  for (let t = Date.parse(from); t <= Date.parse(to); t += DAY_MS) {
    const date = utcDay(t);
    byDay.set(date, { date, views: 0, starts: 0, submissions: 0 });
  }
  const prefix = keys.analyticsOf(form.id, mode);
  const iter = deps.kv.list({ prefix, start: [...prefix, from] }, { batchSize: 500 });
  for await (const e of iter) {
    const [day, kind] = e.key.slice(prefix.length) as [string, string];
    const slot = byDay.get(day);
    if (!slot || !(KINDS as readonly string[]).includes(kind)) continue;
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
  };
}
