/**
 * One endpoint's delivery log by event (its last 100 attempts): each event's final state,
 * its id (the `webhook-id` header), its submission, the next attempt's time while one is
 * due, and its attempts (time, number, answer, latency, the first 1 KB of the response,
 * escaped as text), with "Resend" per event and "Send test event". Both queue a one-off
 * attempt (post/redirect/get).
 * @module
 */
import { page } from "@/lib/ui/define.ts";
import { AppError } from "@/lib/errors.ts";
import { type Delivery, listDeliveries } from "@/lib/notify/deliver.ts";
import { type EventDeliveries, type EventState, groupByEvent } from "@/lib/notify/delivery_log.ts";
import { requireWebhook, type WebhookView, webhookView } from "@/lib/notify/webhooks.ts";
import { resendDelivery, sendTestEvent } from "@/lib/notify/manual.ts";
import { assertNotSuspended } from "@/lib/workspaces/suspension.ts";
import { auditBy } from "@/routes/admin/_audit.ts";
import { ActionButton, PageHead, Time } from "@/routes/admin/_layout.tsx";
import { field, idField } from "@/routes/admin/_page.ts";
import { allow, defineFor } from "@/routes/admin/_access.ts";

interface Data {
  hook: WebhookView;
  events: EventDeliveries[];
}

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.workspace({ GET: "admin", POST: "admin" });
const define = defineFor(access);

/** GET shows the log; POST resends a delivery or sends a test event. */
export const handler = define.handlers<Data>({
  async GET(ctx) {
    const workspace = ctx.workspace;
    const e = await requireWebhook(ctx.deps, workspace.id, ctx.params.wid ?? "");
    const events = groupByEvent(await listDeliveries(ctx.deps, e.value.id), e.value.enabled);
    return page({ hook: webhookView(e.value), events }, { title: "Webhook deliveries" });
  },
  async POST(ctx) {
    const workspace = ctx.workspace;
    assertNotSuspended(workspace);
    const id = ctx.params.wid ?? "";
    const action = field(ctx.body, "action");
    if (action === "test") {
      await sendTestEvent(ctx.deps, workspace.id, id, auditBy(ctx));
      return ctx.redirect(`/admin/webhooks/${id}`, "webhook_test_sent");
    }
    if (action === "resend") {
      await resendDelivery(
        ctx.deps,
        workspace.id,
        id,
        idField(ctx.body, "delivery_id", "Delivery not found."),
      );
      return ctx.redirect(`/admin/webhooks/${id}`, "webhook_resent");
    }
    throw new AppError(400, "bad_request", "Unknown action.");
  },
});

const STATES: Record<EventState, { label: string; badge: string }> = {
  delivered: { label: "delivered", badge: "badge completed" },
  retrying: { label: "retrying", badge: "badge suspicious" },
  failed: { label: "failed", badge: "badge spam" },
  disabled: { label: "not delivered: endpoint disabled", badge: "badge spam" },
};

/** What one attempt's outcome meant when it was logged. */
const OUTCOMES: Record<Delivery["outcome"], string> = {
  delivered: "delivered",
  retrying: "retry scheduled",
  failed: "failed, no retry",
  disabled: "disabled the endpoint",
};

/** The delivery log page. */
export default define.page<typeof handler>(function Deliveries({ data, csrf }) {
  const { hook, events } = data;
  return (
    <>
      <PageHead
        title="Webhook deliveries"
        sub={`${hook.url} (${
          hook.format === "standard" ? "" : `${hook.format}, `
        }${hook.mode} mode)`}
      >
        <a class="button secondary" href="/admin/webhooks">All endpoints</a>
        <ActionButton
          csrf={csrf}
          to={`/admin/webhooks/${hook.id}`}
          action="test"
          label="Send test event"
          kind=""
        />
      </PageHead>
      {!hook.enabled && (
        <p class="notice error" role="alert">
          This endpoint is disabled{hook.disabled_reason ? `: ${hook.disabled_reason}` : "."}{" "}
          Enable it on the Webhooks page to deliver again; events whose retries were dropped
          meanwhile can be resent.
        </p>
      )}
      <p class="muted">
        The last 100 attempts of the past 30 days, by event, newest first. Resend delivers the same
        event again, with the same webhook-id, while it is kept (7 days).
      </p>
      {events.length === 0
        ? <p class="muted">No deliveries yet.</p>
        : events.map((e) => <EventCard key={e.event_id} e={e} hookId={hook.id} csrf={csrf} />)}
    </>
  );
});

/** One event: its state, ids and next attempt, then its attempts. */
function EventCard({ e, hookId, csrf }: { e: EventDeliveries; hookId: string; csrf: string }) {
  const state = STATES[e.state];
  const head = `event-${e.event_id}`;
  return (
    <article class="card delivery-event" aria-labelledby={head}>
      <div class="event-head">
        <h2 id={head}>
          <code>{e.event}</code> <span class={state.badge}>{state.label}</span>
        </h2>
        <ActionButton
          csrf={csrf}
          to={`/admin/webhooks/${hookId}`}
          action="resend"
          fields={{ delivery_id: e.attempts[0].id }}
          label="Resend"
          ariaLabel={`Resend ${e.event_id}`}
        />
      </div>
      <dl class="values">
        <dt>Event id</dt>
        <dd>
          <code>{e.event_id}</code> <span class="muted">(webhook-id header)</span>
        </dd>
        <dt>Submission</dt>
        <dd>
          {e.submission_id
            ? <code>{e.submission_id}</code>
            : <span class="muted">none (test event)</span>}
        </dd>
        {e.state === "retrying" && (
          <>
            <dt>Next attempt</dt>
            <dd>
              {e.next_attempt_at ? <Time iso={e.next_attempt_at} /> : "scheduled"}
            </dd>
          </>
        )}
      </dl>
      <table class="list stack" aria-label={`Attempts of ${e.event_id}`}>
        <thead>
          <tr>
            <th>Time</th>
            <th>Attempt</th>
            <th>Answer</th>
            <th>Latency</th>
            <th>Response</th>
          </tr>
        </thead>
        <tbody>
          {e.attempts.map((d) => (
            <tr key={d.id}>
              <td data-label="Time">
                <Time iso={d.at} />
              </td>
              <td data-label="Attempt">
                {d.attempt}
                {d.manual && <span class="badge">resend</span>}
              </td>
              <td data-label="Answer">
                {d.status ?? "no answer"} <span class="muted">{OUTCOMES[d.outcome]}</span>
              </td>
              <td data-label="Latency">{d.latency_ms} ms</td>
              <td data-label="Response">
                <pre class="pre response">{d.error ? `${d.error}\n` : ""}{d.response}</pre>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </article>
  );
}
