/**
 * Drafts' storage: start, save and read with the resume token, and the one delete every
 * removal goes through (its submission, expiry, erasure, an admin). A draft's record, its
 * expiry index entry and its email index entries are always written and removed together.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { keys } from "@/lib/kv/keys.ts";
import { commitWithRetry, withKvRetry } from "@/lib/kv/kv.ts";
import { emailDigest } from "@/lib/privacy/email_index.ts";
import type { Form } from "@/lib/schemas.ts";
import { type DraftBody, draftValues } from "./check.ts";
import { draftExpiry, draftsEnabled } from "./settings.ts";
import { newDraftToken, tokenDigest, tokenMatches } from "./token.ts";
import type { Draft, DraftView } from "./types.ts";

/** Email index entries one draft gets at most (its first email fields' values). */
const MAX_EMAIL_ENTRIES = 4;

/** The one 404 of a wrong, expired or unknown draft (the same for each: no oracle). */
export function draftNotFound(): AppError {
  return new AppError(404, "not_found", "Draft not found.");
}

/** Refuses a form that keeps no drafts (404) or takes no submissions (423). */
export function requireDraftsOn(form: Form): void {
  if (!draftsEnabled(form)) {
    throw new AppError(404, "not_found", "This form does not keep drafts.");
  }
  if (!form.accepting) throw errors.formClosed();
}

/** What a visitor with the token sees. */
export function draftView(d: Draft): DraftView {
  return {
    data: d.data,
    step: d.step,
    updated_at: d.updated_at,
    expires_at: new Date(d.due_at).toISOString(),
  };
}

/** The distinct digests of a draft's email-type field values, capped. */
function emailDigestsOf(secret: Uint8Array, form: Form, data: Record<string, unknown>): string[] {
  const out = new Set<string>();
  for (const f of form.fields) {
    const v = data[f.name];
    if (f.type === "email" && typeof v === "string" && v.trim()) out.add(emailDigest(secret, v));
  }
  return [...out].slice(0, MAX_EMAIL_ENTRIES);
}

/** Adds a draft's record and its index entries to `op` (the record carries its digests). */
function putDraft(op: Deno.AtomicOperation, d: Draft): void {
  op.set(keys.draft(d.form_id, d.id), d).set(keys.draftDue(d.due_at, d.form_id, d.id), true);
  for (const g of d.email_digests ?? []) {
    op.set(keys.draftByEmail(d.workspace_id, g, d.form_id, d.id), true);
  }
}

/** Adds the removal of a draft, its expiry entry and its email index entries to `op`. */
export function removeDraft(op: Deno.AtomicOperation, d: Draft): void {
  op.delete(keys.draft(d.form_id, d.id)).delete(keys.draftDue(d.due_at, d.form_id, d.id));
  for (const g of d.email_digests ?? []) {
    op.delete(keys.draftByEmail(d.workspace_id, g, d.form_id, d.id));
  }
}

/** Starts a draft; returns its id, resume token (shown only here) and expiry. */
export async function startDraft(
  deps: Pick<Deps, "kv" | "now" | "secret">,
  form: Form,
  body: DraftBody,
): Promise<{ draft_id: string; resume_token: string; expires_at: string }> {
  requireDraftsOn(form);
  const data = draftValues(form, body.data);
  const { id, token } = newDraftToken();
  const now = deps.now();
  const at = new Date(now).toISOString();
  const step = body.step ?? null;
  const digests = emailDigestsOf(deps.secret, form, data);
  const draft: Draft = {
    id,
    form_id: form.id,
    workspace_id: form.workspace_id,
    token_digest: tokenDigest(token),
    data,
    step,
    furthest_step: step,
    created_at: at,
    updated_at: at,
    due_at: draftExpiry(form, now),
    ...(digests.length ? { email_digests: digests } : {}),
  };
  const op = deps.kv.atomic().check({ key: keys.draft(form.id, id), versionstamp: null });
  putDraft(op, draft);
  const res = await withKvRetry(() => op.commit());
  if (!res.ok) throw errors.unavailable();
  return { draft_id: id, resume_token: token, expires_at: new Date(draft.due_at).toISOString() };
}

/**
 * A live draft of `form` whose token is `token`, with its entry; a missing, expired or
 * foreign draft, or a wrong token, is the one 404 (a form without drafts: requireDraftsOn).
 */
export async function requireDraft(
  deps: Pick<Deps, "kv" | "now">,
  form: Form,
  draftId: string,
  token: string | null,
): Promise<Deno.KvEntry<Draft>> {
  requireDraftsOn(form);
  if (!token || !/^drf_[0-9a-z]{26}$/.test(draftId)) throw draftNotFound();
  const entry = await withKvRetry(() => deps.kv.get<Draft>(keys.draft(form.id, draftId)));
  const d = entry.value;
  if (!d || !tokenMatches(token, d.token_digest) || d.due_at <= deps.now()) {
    throw draftNotFound();
  }
  return entry as Deno.KvEntry<Draft>;
}

/** Saves a draft's data and step (checked commit; a concurrent save of it retries). */
export async function saveDraft(
  deps: Pick<Deps, "kv" | "now" | "secret">,
  form: Form,
  draftId: string,
  token: string | null,
  body: DraftBody,
): Promise<DraftView> {
  requireDraftsOn(form);
  const data = draftValues(form, body.data);
  const digests = emailDigestsOf(deps.secret, form, data);
  const saved = await commitWithRetry(deps.kv, async (op) => {
    const entry = await requireDraft(deps, form, draftId, token);
    const d = entry.value;
    const step = body.step === undefined ? d.step : body.step;
    const next: Draft = {
      ...d,
      data,
      step,
      furthest_step: step === null ? d.furthest_step : Math.max(step, d.furthest_step ?? 0),
      updated_at: new Date(deps.now()).toISOString(),
      email_digests: digests,
    };
    if (!digests.length) delete next.email_digests;
    op.check(entry);
    removeDraft(op, d);
    putDraft(op, next);
    return next;
  });
  return draftView(saved!);
}

/** Deletes a draft with its index entries (checked); true when this call removed it. */
export async function deleteDraft(
  deps: Pick<Deps, "kv">,
  formId: string,
  draftId: string,
): Promise<boolean> {
  const done = await commitWithRetry(deps.kv, async (op) => {
    const entry = await deps.kv.get<Draft>(keys.draft(formId, draftId));
    if (!entry.value) return null;
    op.check(entry);
    removeDraft(op, entry.value);
    return true;
  });
  return done === true;
}
