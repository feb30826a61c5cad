/**
 * Resume links: a visitor with a draft's token asks for a link to finish later, mailed to
 * the address they give. At most one a draft per 10 minutes; each counts against the
 * workspace's hourly cap on mail visitors trigger (shared with the autoresponder) and the
 * instance's, in one checked commit with the `send_visitor_mail` job, so racing requests
 * (in one process or two) never send more. The mail says who sent it and why, and carries
 * the link only: no form data.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { AppError } from "@/lib/errors.ts";
import { keys } from "@/lib/kv/keys.ts";
import { commitWithRetry } from "@/lib/kv/kv.ts";
import { AUTORESPONDER_WINDOW_MS, WORKSPACE_REPLIES_PER_HOUR } from "@/lib/notify/autoresponder.ts";
import { headerSafe } from "@/lib/notify/email.ts";
import type { Form, Workspace } from "@/lib/schemas.ts";
import { newId } from "@/lib/ids.ts";
import { requireDraft, requireDraftsOn } from "./store.ts";
import { indexResumeMail } from "./resume_copies.ts";
import type { Draft } from "./types.ts";

/** The shortest time between two resume links of one draft. */
export const RESUME_MAIL_GAP_MS = 10 * 60_000;
/** Mails visitors may trigger per hour on the whole instance. */
export const INSTANCE_VISITOR_MAILS_PER_HOUR = 1000;

/** The link that opens the hosted page with the draft loaded. */
export function resumeUrl(baseUrl: string, formId: string, token: string): string {
  return `${baseUrl}/f/${encodeURIComponent(formId)}?resume=${encodeURIComponent(token)}`;
}

/** The resume mail: who sent it, why, the link and until when it works. */
export function resumeMail(
  o: { baseUrl: string; form: Form; workspace: Workspace; token: string; expiresAt: number },
): { subject: string; text: string } {
  const host = new URL(o.baseUrl).host;
  const until = new Date(o.expiresAt).toUTCString();
  return {
    subject: headerSafe(`Finish “${o.form.name}” later`),
    text: [
      `Someone, probably you, asked ${host} to send this address a link to finish the form ` +
      `“${o.form.name}” of ${o.workspace.name} later.`,
      "",
      "Continue where you left off:",
      resumeUrl(o.baseUrl, o.form.id, o.token),
      "",
      `The link works until ${until}. Nothing has been submitted yet: your answers are sent ` +
      "only when you submit the form. Anyone with this link can see and change your answers, " +
      "so do not forward it.",
      "",
      "If you did not ask for this, ignore this mail.",
    ].join("\n"),
  };
}

function tooSoon(): AppError {
  return new AppError(
    429,
    "rate_limited",
    "A link to this draft was sent less than 10 minutes ago. Check your inbox.",
  );
}

function capped(): AppError {
  return new AppError(429, "rate_limited", "Too many emails were sent. Try again later.");
}

/** Mails a resume link for a draft to `email`; refusals are 404 (draft) or 429 (limits). */
export async function sendResumeLink(
  deps: Pick<Deps, "kv" | "now" | "jobs" | "config" | "secret">,
  target: { form: Form; workspace: Workspace },
  draftId: string,
  token: string | null,
  email: string,
): Promise<void> {
  const { form, workspace } = target;
  requireDraftsOn(form);
  const wsKey = keys.autoresponderWorkspaceSends(workspace.id);
  const allKey = keys.visitorMailSends();
  await commitWithRetry(deps.kv, async (op) => {
    const entry = await requireDraft(deps, form, draftId, token);
    const now = deps.now();
    const d = entry.value;
    if (d.mailed_at && now - d.mailed_at < RESUME_MAIL_GAP_MS) throw tooSoon();
    const since = now - AUTORESPONDER_WINDOW_MS;
    const [ws, all] = await deps.kv.getMany<[number[], number[]]>([wsKey, allKey]);
    const wsSends = (ws.value ?? []).filter((t) => t > since);
    const allSends = (all.value ?? []).filter((t) => t > since);
    if (wsSends.length >= WORKSPACE_REPLIES_PER_HOUR) throw capped();
    if (allSends.length >= INSTANCE_VISITOR_MAILS_PER_HOUR) throw capped();
    const expireIn = AUTORESPONDER_WINDOW_MS;
    op.check(entry, ws, all)
      .set(entry.key, { ...d, mailed_at: now } satisfies Draft)
      .set(wsKey, [...wsSends, now], { expireIn })
      .set(allKey, [...allSends, now], { expireIn });
    const mail = resumeMail({
      baseUrl: deps.config.publicBaseUrl,
      form,
      workspace,
      token: token!,
      expiresAt: d.due_at,
    });
    // The address stays in the email log (and outbox) a while: erase/export find it there.
    const mailId = newId("mail");
    indexResumeMail(op, deps.secret, {
      workspaceId: workspace.id,
      formId: form.id,
      mailId,
      email,
      at: now,
    });
    deps.jobs.enqueue(op, {
      type: "send_visitor_mail",
      workspace_id: workspace.id,
      form_id: form.id,
      mail_id: mailId,
      to: email,
      ...mail,
      attempt: 0,
    });
    return true;
  });
}
