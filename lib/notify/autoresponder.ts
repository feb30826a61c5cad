/**
 * The autoresponder's limits: which submissions get a reply, and one checked commit that
 * counts each reply against one per normalised address per form, 20 per form and 100 per
 * workspace in any hour. The hour slides on the service's clock (`deps.now`); KV's own
 * expiry only clears the records later.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { keys } from "@/lib/kv/keys.ts";
import { commitWithRetry } from "@/lib/kv/kv.ts";
import type { Form } from "@/lib/schemas.ts";
import type { PublicSubmission } from "@/lib/submissions/query.ts";
import { plainAddress } from "./email.ts";

/** The window every autoresponder limit counts in. */
export const AUTORESPONDER_WINDOW_MS = 3600 * 1000;
/** Replies one form sends at most per window. */
export const FORM_REPLIES_PER_HOUR = 20;
/** Replies one workspace sends at most per window. */
export const WORKSPACE_REPLIES_PER_HOUR = 100;

/** The limits in words, for the form editor. */
export const AUTORESPONDER_LIMITS_TEXT =
  `Never to spam or suspicious submissions; at most one reply an hour per address (name+tag@ ` +
  `counts as name@), ${FORM_REPLIES_PER_HOUR} per form and ${WORKSPACE_REPLIES_PER_HOUR} per ` +
  `workspace. Replies held back are listed in the Outbox.`;

/** Which limit held a reply back. */
export type Suppressed = "address" | "form" | "workspace";

/** Why a reply was held back, as the email log says it. */
export const SUPPRESSED_DETAIL: Record<Suppressed, string> = {
  address: "one reply per address an hour",
  form: `the form's limit of ${FORM_REPLIES_PER_HOUR} replies an hour`,
  workspace: `the workspace's limit of ${WORKSPACE_REPLIES_PER_HOUR} replies an hour`,
};

/** Where the last reply to an address went: when, and for which event. */
interface AddressMark {
  at: number;
  event_id: string;
}

/**
 * The address a submission's autoresponse goes to, or null when none is due: the form's
 * autoresponder is on, the submission is `completed` (never spam or suspicious), and its
 * email field holds one plain address.
 */
export function autoresponseAddress(
  form: Pick<Form, "notifications">,
  s: Pick<PublicSubmission, "status" | "fields">,
): string | null {
  const a = form.notifications?.autoresponder;
  if (!a?.enabled || s.status !== "completed" || !Object.hasOwn(s.fields, a.email_field)) {
    return null;
  }
  return plainAddress(s.fields[a.email_field]);
}

/** An address as the limits count it: trimmed, lower-case, `+tag` cut from the local part. */
export function normalisedAddress(address: string): string {
  const a = address.trim().toLowerCase();
  const at = a.lastIndexOf("@");
  if (at < 0) return a;
  const local = a.slice(0, at);
  const plus = local.indexOf("+");
  return `${plus > 0 ? local.slice(0, plus) : local}${a.slice(at)}`;
}

/** The address record's key part: no address is stored in the clear. */
async function addressDigest(formId: string, address: string): Promise<string> {
  const data = new TextEncoder().encode(`${formId}\n${normalisedAddress(address)}`);
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
  return Array.from(d.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The send times of `times` still inside the window. */
function recent(times: number[] | null, since: number): number[] {
  return (times ?? []).filter((t) => t > since);
}

/**
 * Counts the reply of event `eventId` to `address` against every limit in one checked commit
 * (so two jobs racing, in one process or two, never send more); returns null when it may go,
 * else the limit that holds it back. The same event again (a retry, a redelivered job) finds
 * its own mark and is not counted twice.
 */
export async function claimAutoresponse(
  deps: Pick<Deps, "kv" | "now">,
  c: { workspaceId: string; formId: string; eventId: string; address: string },
): Promise<Suppressed | null> {
  const addressKey = keys.autoresponderAddress(c.formId, await addressDigest(c.formId, c.address));
  const formKey = keys.autoresponderFormSends(c.formId);
  const workspaceKey = keys.autoresponderWorkspaceSends(c.workspaceId);
  const outcome: { held: Suppressed | null } = { held: null };
  await commitWithRetry(deps.kv, async (op) => {
    outcome.held = null;
    const now = deps.now();
    const since = now - AUTORESPONDER_WINDOW_MS;
    const [mark, form, workspace] = await deps.kv.getMany<[AddressMark, number[], number[]]>([
      addressKey,
      formKey,
      workspaceKey,
    ]);
    const formSends = recent(form.value, since);
    const workspaceSends = recent(workspace.value, since);
    if (mark.value && mark.value.at > since) {
      if (mark.value.event_id !== c.eventId) outcome.held = "address";
      return null;
    }
    if (formSends.length >= FORM_REPLIES_PER_HOUR) outcome.held = "form";
    else if (workspaceSends.length >= WORKSPACE_REPLIES_PER_HOUR) outcome.held = "workspace";
    if (outcome.held) return null;
    const expireIn = AUTORESPONDER_WINDOW_MS;
    op.check(mark, form, workspace)
      .set(addressKey, { at: now, event_id: c.eventId } satisfies AddressMark, { expireIn })
      .set(formKey, [...formSends, now], { expireIn })
      .set(workspaceKey, [...workspaceSends, now], { expireIn });
    return true;
  });
  return outcome.held;
}
