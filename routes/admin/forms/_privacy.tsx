/**
 * A form's privacy settings on its overview page: retention (forever or 1..3650 days),
 * IP policy and user agent, with "Keeps submissions N days; next removal <date>".
 * Retention goes through setFormRetention (audited `form.retention_changed`); IP and user
 * agent changes are audited as `form.changed`.
 * @module
 */
import { count } from "@/components/count.ts";
import { errors } from "@/lib/errors.ts";
import { mutateForm } from "@/lib/forms/forms.ts";
import { clientIp } from "@/lib/http/http.ts";
import { audit } from "@/lib/privacy/audit.ts";
import { privacyOf } from "@/lib/privacy/ip.ts";
import { setFormRetention } from "@/lib/privacy/settings.ts";
import { type Form, STORE_IP_POLICIES, type StoreIpPolicy } from "@/lib/schemas.ts";
import { writableWorkspace } from "@/lib/workspaces/suspension.ts";
import { Csrf, Time } from "@/routes/admin/_layout.tsx";
import { field, type SignedInContext } from "@/routes/admin/_page.ts";

/** What the overview shows of retention (lib/privacy/retention.ts retentionSummary). */
export interface RetentionView {
  retention_days: number | null;
  next_removal: string | null;
}

function retentionOf(body: URLSearchParams): number | null {
  if (field(body, "retention") !== "days") return null;
  const raw = field(body, "retention_days");
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > 3650) {
    throw errors.badRequest("Keep submissions for 1 to 3650 days, or choose Forever.");
  }
  return n;
}

/** Saves the posted privacy settings of `form` (POST `action=privacy`). */
export async function savePrivacy(ctx: SignedInContext, form: Form): Promise<void> {
  const days = retentionOf(ctx.body);
  const ip = field(ctx.body, "store_ip") as StoreIpPolicy;
  if (!STORE_IP_POLICIES.includes(ip)) throw errors.badRequest("Choose how to store IP addresses.");
  const ua = ctx.body.get("store_user_agent") === "on";
  // A suspended workspace is read-only (setFormRetention alone does not check it).
  await writableWorkspace(ctx.deps, form.workspace_id);
  const who = {
    actor: `user:${ctx.state.user.email}`,
    ip: clientIp(ctx.c, ctx.deps.config.trustProxy),
  };
  const now = privacyOf(form);
  if (days !== now.retention_days) await setFormRetention(ctx.deps, form.id, days, who);
  if (ip !== now.store_ip || ua !== now.store_user_agent) {
    await mutateForm(ctx.deps, form.id, (f) => ({ ...f, store_ip: ip, store_user_agent: ua }));
    await audit(ctx.deps, {
      workspaceId: form.workspace_id,
      action: "form.changed",
      ...who,
      details: { form: form.id, store_ip: ip, store_user_agent: ua },
    });
  }
}

/** The privacy section of the overview page. */
export function PrivacySection(
  { form, summary, analyticsDays, csrf, manage }: {
    form: Form;
    summary: RetentionView;
    /** How long the plan keeps analytics counts (a separate retention). */
    analyticsDays: number;
    csrf: string;
    manage: boolean;
  },
) {
  const p = privacyOf(form);
  const days = summary.retention_days;
  return (
    <section aria-labelledby="privacy-h">
      <h2 id="privacy-h">Privacy</h2>
      <p id="retention-summary">
        {days === null
          ? "Submissions are kept until someone deletes them (no retention period)."
          : `Submissions are deleted once they are ${count(days, "day")} old; `}
        {days !== null && (summary.next_removal
          ? (
            <>
              next removal <Time iso={summary.next_removal} />.
            </>
          )
          : "nothing to remove yet.")}{" "}
        This covers the submissions and their files; the analytics counts above are kept apart, for
        the plan's {count(analyticsDays, "day")}.
      </p>
      {manage && (
        <form method="post" class="stack">
          <Csrf token={csrf} />
          <input type="hidden" name="action" value="privacy" />
          <fieldset>
            <legend>Keep submissions</legend>
            <label>
              <input type="radio" name="retention" value="forever" checked={days === null} />{" "}
              Forever
            </label>
            <label>
              <input type="radio" name="retention" value="days" checked={days !== null} /> For
            </label>{" "}
            <label class="visually-hidden" for="retention-days">Days to keep submissions</label>
            <input
              id="retention-days"
              name="retention_days"
              type="number"
              min={1}
              max={3650}
              value={days ?? 365}
            />{" "}
            days
          </fieldset>
          <label for="store-ip">Store the sender's IP address</label>
          <select id="store-ip" name="store_ip">
            {STORE_IP_POLICIES.map((v) => (
              <option key={v} value={v} selected={v === p.store_ip}>
                {{ full: "Full address", truncated: "Truncated (/24, /48)", none: "Not at all" }[v]}
              </option>
            ))}
          </select>
          <label>
            <input type="checkbox" name="store_user_agent" checked={p.store_user_agent} />{" "}
            Store the sender's browser (user agent)
          </label>
          <div>
            <button type="submit" class="secondary">Save privacy settings</button>
          </div>
        </form>
      )}
    </section>
  );
}
