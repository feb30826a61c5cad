/**
 * Notifications entry points: {@linkcode notifySubmission} turns a submission event into
 * owner emails, an autoresponse and webhook deliveries, all enqueued in one atomic
 * commit with the stored event (one-off deliveries are in manual.ts).
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { newId } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";
import { commitWithRetry, getManyChunked } from "@/lib/kv/kv.ts";
import { CommitBudget, maxChecks } from "@/lib/kv/batcher.ts";
import { getForm } from "@/lib/forms/forms.ts";
import type { Form, Submission } from "@/lib/schemas.ts";
import { readSubmissions } from "@/lib/submissions/records.ts";
import { submissionView } from "@/lib/submissions/query.ts";
import { indexEvent } from "./copies.ts";
import { heard, whoHears } from "./hearers.ts";
import {
  createdEventId,
  eventBytes,
  type EventType,
  type NotifyEvent,
  storeEvent,
} from "./events.ts";
import { MAX_EVENTS_PER_DELIVERY } from "./jobs.ts";
import { type Listening, listensTo, listWebhooks, type Webhook } from "./webhooks.ts";
import { logger } from "@/lib/observe/log.ts";

/** What happened to a submission. */
export interface SubmissionEvent {
  type: EventType;
  form: Form;
  /** The submission, with its final status (for `submission.deleted`: as it was). */
  submission: Submission;
  /** For `submission.status_changed`. */
  previous_status?: string;
  /**
   * A fixed event id (e.g. one per submission for `submission.created`): a second call with
   * it enqueues nothing, so a re-delivered job notifies once.
   */
  event_id?: string;
}

/** What one event enqueues, worked out before its commit. */
interface Planned {
  /** Index of the event in the caller's list. */
  at: number;
  event: NotifyEvent;
  bytes: Uint8Array;
  /** The event's first chunk, when its id is fixed: present means already enqueued. */
  first: Deno.KvKey | null;
  ownerMail: boolean;
  /** Whether an autoresponse is due (its job applies the autoresponder's limits). */
  autoresponse: boolean;
  /** The ids of the webhooks that receive it. */
  hooks: string[];
}

/** Events one commit stores at most (each enqueues up to two mail jobs beside its chunks). */
const MAX_EVENTS_PER_COMMIT = 40;

/** What `ev` triggers given the workspace's webhooks (whoHears); null when nothing is due. */
function plan(
  deps: Deps,
  ev: SubmissionEvent,
  at: number,
  listening: [string, Listening][],
): Planned | null {
  const { form, submission: s } = ev;
  const who = whoHears(form, ev.type, s, listening);
  if (!heard(who)) return null;
  const event: NotifyEvent = {
    id: ev.event_id ?? newId("msg"),
    type: ev.type,
    at: new Date(deps.now()).toISOString(),
    workspace_id: s.workspace_id,
    form,
    submission: submissionView(s),
    ...(ev.previous_status ? { previous_status: ev.previous_status } : {}),
    ...(who.ownerMail && s.owner_mail ? { owner_mail: s.owner_mail } : {}),
  };
  return {
    at,
    event,
    bytes: eventBytes(event),
    first: ev.event_id ? keys.notifyEventChunk(ev.event_id, 0) : null,
    ownerMail: who.ownerMail,
    autoresponse: who.autoresponse,
    hooks: who.webhooks,
  };
}

/**
 * Splits planned events into groups one commit can hold (kv/batcher.ts CommitBudget: KV's
 * checks, each event with a fixed id adding one, and the commit byte budget).
 */
function commitGroups(kv: Deno.Kv, planned: Planned[]): Planned[][] {
  const groups: Planned[][] = [];
  let cur: Planned[] = [];
  let budget = new CommitBudget({ checks: maxChecks(kv), items: MAX_EVENTS_PER_COMMIT });
  for (const p of planned) {
    const checks = p.first ? 1 : 0;
    if (!budget.fits(checks, p.bytes.length)) {
      groups.push(cur);
      cur = [];
      budget = new CommitBudget({ checks: maxChecks(kv), items: MAX_EVENTS_PER_COMMIT });
    }
    cur.push(p);
    budget.add(checks, p.bytes.length);
  }
  if (cur.length) groups.push(cur);
  return groups;
}

/**
 * Enqueues what events trigger, storing the events (indexed by their submission) with their
 * jobs in as few commits as fit: for a live `submission.created`, the owner email
 * (suspicious ones if `notify_suspicious`, marked; spam if `notify_spam`) and an
 * autoresponse (completed only; its job applies the limits); for every event, one
 * delivery job per enabled webhook of the submission's mode subscribed to it and to the
 * form, carrying all of a commit's events for it. Returns each event's id, or null where
 * nothing was due.
 */
export async function notifyEvents(
  deps: Deps,
  evs: SubmissionEvent[],
  /** Every event's workspace's webhooks, when the caller has them (one list for many). */
  webhooks?: Webhook[],
): Promise<(string | null)[]> {
  const ids: (string | null)[] = evs.map(() => null);
  const lists = new Map<string, [string, Listening][]>();
  const pending: Planned[] = [];
  for (const [i, ev] of evs.entries()) {
    const ws = ev.submission.workspace_id;
    if (!lists.has(ws)) {
      const list = webhooks ?? await listWebhooks(deps, ws);
      lists.set(ws, list.map((w) => [w.id, listensTo(w)]));
    }
    const p = plan(deps, ev, i, lists.get(ws)!);
    if (p) pending.push(p);
  }
  for (const group of commitGroups(deps.kv, await unstored(deps.kv, pending, ids))) {
    let retry = false;
    const committed = await commitWithRetry(deps.kv, async (op) => {
      // A conflict may mean another run stored some of these events meanwhile.
      const live = retry ? await unstored(deps.kv, group, ids) : group;
      retry = true;
      if (!live.length) return null;
      enqueueGroup(deps, op, live);
      return live;
    }, 5);
    committed?.forEach((p) => ids[p.at] = p.event.id);
  }
  return ids;
}

/**
 * The planned events not stored yet (a fixed-id event whose first chunk exists was
 * enqueued before: its id goes to `ids`).
 */
async function unstored(
  kv: Deno.Kv,
  planned: Planned[],
  ids: (string | null)[],
): Promise<Planned[]> {
  const wanted = new Map<string, Deno.KvKey>();
  for (const p of planned) {
    if (p.first) wanted.set(JSON.stringify(p.first), p.first);
  }
  if (!wanted.size) return planned;
  const reads = new Map<string, Deno.KvEntryMaybe<unknown>>();
  for (const e of await getManyChunked(kv, [...wanted.values()])) {
    reads.set(JSON.stringify(e.key), e);
  }
  return planned.filter((p) => {
    if (!p.first || reads.get(JSON.stringify(p.first))!.versionstamp === null) return true;
    ids[p.at] = p.event.id; // A re-delivered job: enqueued before.
    return false;
  });
}

/** Adds a group's events, their index entries and their jobs to one commit. */
function enqueueGroup(deps: Deps, op: Deno.AtomicOperation, group: Planned[]): void {
  const perHook = new Map<string, string[]>();
  for (const p of group) {
    if (p.first) op.check({ key: p.first, versionstamp: null });
    storeEvent(op, p.event.id, p.bytes);
    if (p.event.submission) indexEvent(op, p.event.submission.id, p.event.id);
    const mails = [p.ownerMail && "owner" as const, p.autoresponse && "autoresponder" as const];
    for (const kind of mails) {
      if (kind) {
        deps.jobs.enqueue(op, { type: "send_email", event_id: p.event.id, kind, attempt: 0 });
      }
    }
    for (const id of p.hooks) perHook.set(id, [...perHook.get(id) ?? [], p.event.id]);
  }
  for (const [webhookId, eventIds] of perHook) {
    for (let i = 0; i < eventIds.length; i += MAX_EVENTS_PER_DELIVERY) {
      deps.jobs.enqueue(op, {
        type: "deliver_webhook",
        event_ids: eventIds.slice(i, i + MAX_EVENTS_PER_DELIVERY),
        webhook_id: webhookId,
        attempt: 0,
        chain: newId("chn"),
      });
    }
  }
}

/** {@linkcode notifyEvents} for one event: its id, or null when nothing was due. */
export async function notifySubmission(
  deps: Deps,
  ev: SubmissionEvent,
  webhooks?: Webhook[],
): Promise<string | null> {
  return (await notifyEvents(deps, [ev], webhooks))[0];
}

/**
 * Handler of `notify_created`, enqueued by the commit that gave the final verdicts (the
 * storing one, or the scoring job's): a `submission.created` event per submission it scored,
 * each once (its event id is fixed by the submission).
 */
export async function notifyCreatedJob(
  deps: Deps,
  job: { form_id: string; ids: string[] },
): Promise<void> {
  const form = await getForm(deps, job.form_id);
  if (!form) return;
  // The commit enqueued this job because someone heard; one list serves the batch.
  const webhooks = await listWebhooks(deps, form.workspace_id);
  const subs = await readSubmissions(deps.kv, job.form_id, job.ids);
  await notifyEvents(
    deps,
    subs.flatMap((s) =>
      s
        ? [{
          type: "submission.created" as const,
          form,
          submission: s,
          event_id: createdEventId(s.id),
        }]
        : []
    ),
    webhooks,
  );
}

/**
 * Notifies `submission.status_changed` or `submission.deleted` events right after the commit
 * that made them, all in as few commits as fit; a failure is logged (the change stands).
 */
export async function notifyQuietly(deps: Deps, evs: SubmissionEvent[]): Promise<void> {
  if (!evs.length) return;
  try {
    await notifyEvents(deps, evs);
  } catch (err) {
    logger.error("notification enqueue failed", {
      type: evs[0].type,
      events: evs.length,
      err: String(err),
    });
  }
}
