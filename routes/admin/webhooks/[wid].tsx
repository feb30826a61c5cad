/**
 * One endpoint's delivery log (its last 100 attempts: time, event, attempt, status,
 * latency, the first 1 KB of the response, escaped as text) with "Resend" per delivery and
 * "Send test event". Both queue a one-off attempt (post/redirect/get).
 * @module
 */
import { page } from "@/lib/ui/define.ts";
import { AppError } from "@/lib/errors.ts";
import { type Delivery, listDeliveries } from "@/lib/notify/deliver.ts";
import { requireWebhook, type WebhookView, webhookView } from "@/lib/notify/webhooks.ts";
import { resendDelivery, sendTestEvent } from "@/lib/notify/manual.ts";
import { assertNotSuspended } from "@/lib/workspaces/suspension.ts";
import { auditBy } from "@/routes/admin/_audit.ts";
import { ActionButton, PageHead, Time } from "@/routes/admin/_layout.tsx";
import { define, field, idField, requireWorkspace } from "@/routes/admin/_page.ts";

interface Data {
  hook: WebhookView;
  deliveries: Delivery[];
}

/** GET shows the log; POST resends a delivery or sends a test event. */
export const handler = define.handlers<Data>({
  async GET(ctx) {
    const workspace = requireWorkspace(ctx);
    const e = await requireWebhook(ctx.deps, workspace.id, ctx.params.wid ?? "");
    const deliveries = await listDeliveries(ctx.deps, e.value.id);
    return page({ hook: webhookView(e.value), deliveries }, { title: "Webhook deliveries" });
  },
  async POST(ctx) {
    const workspace = requireWorkspace(ctx);
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

function outcomeClass(d: Delivery): string {
  if (d.outcome === "delivered") return "badge completed";
  if (d.outcome === "retrying") return "badge suspicious";
  return "badge spam";
}

/** The delivery log page. */
export default define.page<typeof handler>(function Deliveries({ data, csrf }) {
  const { hook, deliveries } = data;
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
          Enable it on the Webhooks page to deliver again.
        </p>
      )}
      <p class="muted">
        The last 100 attempts of the past 30 days, newest first. Resend delivers the same event
        again, with the same webhook-id, while it is kept (7 days).
      </p>
      {deliveries.length === 0 ? <p class="muted">No deliveries yet.</p> : (
        <div class="table-wrap">
          <table class="list" aria-label="Deliveries">
            <thead>
              <tr>
                <th>Time</th>
                <th>Event</th>
                <th>Attempt</th>
                <th>Status</th>
                <th>Latency</th>
                <th>Response</th>
                <th>
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {deliveries.map((d) => (
                <tr>
                  <td>
                    <Time iso={d.at} />
                  </td>
                  <td>
                    <code>{d.event}</code>
                    {d.manual && <span class="badge">manual</span>}
                  </td>
                  <td>{d.attempt}</td>
                  <td>
                    <span class={outcomeClass(d)}>{d.outcome}</span> {d.status ?? "no answer"}
                  </td>
                  <td>{d.latency_ms} ms</td>
                  <td>
                    <pre class="pre response">{d.error ? `${d.error}\n` : ""}{d.response}</pre>
                  </td>
                  <td>
                    <ActionButton
                      csrf={csrf}
                      to={`/admin/webhooks/${hook.id}`}
                      action="resend"
                      fields={{ delivery_id: d.id }}
                      label="Resend"
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
});
