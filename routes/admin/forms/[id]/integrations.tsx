/**
 * A form's Integrations tab (admins): its notification email and the webhooks and
 * destinations that apply to it, each with its last delivery state and a "Send test"
 * button (a test mail to the owner addresses through the mailer; a webhook's test event).
 * @module
 */
import { page } from "@/lib/ui/define.ts";
import { AppError } from "@/lib/errors.ts";
import type { EmailLogEntry } from "@/lib/notify/outbox.ts";
import {
  type FormIntegrations,
  formIntegrations,
  sendTestMail,
} from "@/lib/notify/integrations.ts";
import { sendTestEvent } from "@/lib/notify/manual.ts";
import type { Delivery } from "@/lib/notify/deliver.ts";
import type { Form } from "@/lib/schemas.ts";
import { writableWorkspace } from "@/lib/workspaces/suspension.ts";
import { auditBy } from "@/routes/admin/_audit.ts";
import { ActionButton, FormTabs, PageHead, Time } from "@/routes/admin/_layout.tsx";
import { field } from "@/routes/admin/_page.ts";
import { allow, defineFor } from "@/routes/admin/_access.ts";

interface Data {
  form: Form;
  integrations: FormIntegrations;
}

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.form({ GET: "admin", POST: "admin" });
const define = defineFor(access);

/** GET lists; POST `action` = test_mail | test_webhook (with `id`). */
export const handler = define.handlers<Data>({
  async GET(ctx) {
    const form = ctx.form;
    const integrations = await formIntegrations(ctx.deps, form);
    return page({ form, integrations }, { title: `${form.name}: integrations` });
  },
  async POST(ctx) {
    const form = ctx.form;
    await writableWorkspace(ctx.deps, form.workspace_id);
    const back = `/admin/forms/${form.id}/integrations`;
    const action = field(ctx.body, "action");
    if (action === "test_mail") {
      await sendTestMail(ctx.deps, form);
      return ctx.redirect(back, "test_mail_sent");
    }
    if (action === "test_webhook") {
      await sendTestEvent(ctx.deps, form.workspace_id, field(ctx.body, "id"), auditBy(ctx));
      return ctx.redirect(back, "webhook_test_sent");
    }
    throw new AppError(400, "bad_request", "Unknown action.");
  },
});

function badge(state: string): string {
  if (state === "delivered" || state === "accepted" || state === "outbox") return "completed";
  if (state === "retrying" || state === "suppressed") return "suspicious";
  return "spam";
}

function LastMail({ e }: { e: EmailLogEntry | null }) {
  if (!e) return <span class="muted">nothing sent in the last 30 days</span>;
  return (
    <>
      <span class={`badge ${badge(e.result)}`}>{e.result}</span> <Time iso={e.at} />
      {e.detail && <div class="muted">{e.detail}</div>}
    </>
  );
}

function LastDelivery({ d }: { d: Delivery | null }) {
  if (!d) return <span class="muted">no delivery in the last 30 days</span>;
  return (
    <>
      <span class={`badge ${badge(d.outcome)}`}>{d.outcome}</span> {d.status ?? "no answer"}{" "}
      <Time iso={d.at} />
    </>
  );
}

/** The Integrations tab. */
export default define.page<typeof handler>(function Integrations({ data, csrf }) {
  const { form, integrations: i } = data;
  return (
    <>
      <PageHead title={form.name} sub="Where each submission goes besides the admin." />
      <FormTabs id={form.id} current="/integrations" />
      <div class="table-wrap">
        <table class="list" aria-label="Integrations">
          <thead>
            <tr>
              <th>Integration</th>
              <th>Target</th>
              <th>Last delivery</th>
              <th>
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <td>Email to owners</td>
              <td>
                {i.emails.length ? i.emails.join(", ") : (
                  <span class="muted">
                    no addresses: <a href={`/admin/forms/${form.id}/edit`}>add them in Edit</a>
                  </span>
                )}
              </td>
              <td>
                <LastMail e={i.lastOwnerMail} />
              </td>
              <td class="actions">
                <ActionButton
                  csrf={csrf}
                  action="test_mail"
                  label="Send test"
                  disabled={i.emails.length === 0}
                />
              </td>
            </tr>
            {i.autoresponder && (
              <tr>
                <td>Autoresponse</td>
                <td>the submitter</td>
                <td>
                  <LastMail e={i.lastAutoresponse} />
                </td>
                <td></td>
              </tr>
            )}
            {i.hooks.map(({ hook, last }) => (
              <tr>
                <td>
                  {hook.format === "standard" ? "Webhook" : `Destination: ${hook.format}`}{" "}
                  <span class={`badge ${hook.mode === "live" ? "completed" : "suspicious"}`}>
                    {hook.mode}
                  </span>
                </td>
                <td>
                  <a href={`/admin/webhooks/${hook.id}`}>{hook.url}</a>
                  {!hook.enabled && (
                    <div class="notice error" role="alert">
                      disabled{hook.disabled_reason ? `: ${hook.disabled_reason}` : ""}
                    </div>
                  )}
                </td>
                <td>
                  <LastDelivery d={last} />
                </td>
                <td class="actions">
                  <ActionButton
                    csrf={csrf}
                    action="test_webhook"
                    fields={{ id: hook.id }}
                    label="Send test"
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {i.hooks.length === 0 && (
        <p class="muted">
          No webhook or destination applies to this form. Add one on the{" "}
          <a href="/admin/webhooks">Webhooks</a> page (Slack, Discord and Teams included).
        </p>
      )}
    </>
  );
});
