/**
 * Stage four of a submit, admit: validation (422), the files' grants (422), the stored
 * size (413) and the CAPTCHA gate (403), ending in the draft the writer stores.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { invalid, validateData } from "@/lib/forms/validator.ts";
import { captchaGate } from "@/lib/protection/gates.ts";
import type { LimitSpend } from "@/lib/ratelimit/types.ts";
import type { SubmissionSignals } from "@/lib/schemas.ts";
import { prepareAttachments } from "@/lib/uploads/attach.ts";
import { draftCommitParts } from "@/lib/drafts/submit_part.ts";
import { findReplay } from "./idempotency.ts";
import { checkStoredSize, type SubmitBody } from "./parse.ts";
import type { SubmitState } from "./read.ts";
import type { Screened } from "./screen.ts";
import type { CreatedBody, SubmissionDraft, SubmitContext } from "./types.ts";

/** An admitted submission: the draft to write and the claim to free once written. */
export type Admitted = { draft: SubmissionDraft; release: () => void } | { replay: CreatedBody };

/**
 * Admits a screened submission: its values validated and coerced, file references
 * resolved to verified grants, and the CAPTCHA token checked last, after validation, so a
 * token is not spent at the provider on a 422. An idempotent retry whose token its original
 * spent replays instead.
 */
export async function admit(
  deps: Deps,
  ctx: SubmitContext,
  body: SubmitBody,
  state: SubmitState,
  screened: Screened,
  spend: LimitSpend,
): Promise<Admitted> {
  const { form, workspace } = state;
  const mode = ctx.auth?.mode ?? "live";
  const metadata = body.metadata ?? {};
  const checked = validateData(form, body.data, ctx.source, { asked: ctx.language });
  if (checked.errors.length) throw invalid(checked);
  const { values } = checked;
  // Resolves file references to verified grants (stored refs replace the client's).
  const attachments = await prepareAttachments(deps, form, mode, values);
  const size = checkStoredSize(values, metadata);
  const { hash } = screened;
  const gate = await captchaGate(
    deps,
    ctx,
    form,
    body.captcha_token,
    () => findReplay(deps, form.id, mode, ctx.idempotencyKey!, hash),
  );
  if (gate.replay) return { replay: gate.replay };
  const now = deps.now();
  const signals: SubmissionSignals = {
    ip: ctx.ip,
    user_agent: ctx.userAgent?.slice(0, 256) ?? undefined,
    origin: ctx.origin?.slice(0, 300) ?? undefined,
    via_key: Boolean(ctx.auth),
    // A render time in the future is a skewed client clock, not a fast bot: no signal.
    fill_ms: body.rendered_at && body.rendered_at <= now ? now - body.rendered_at : undefined,
    captcha: gate.captcha,
    failures: screened.failures,
  };
  const draft: SubmissionDraft = {
    form,
    workspace,
    mode,
    fields: values,
    metadata,
    files: attachments.files,
    signals,
    ...(ctx.ownerMail ? { ownerMail: ctx.ownerMail } : {}),
    idempotency: ctx.idempotencyKey
      ? { key: ctx.idempotencyKey, hash, seenAt: state.seqSeen }
      : undefined,
    limits: [spend],
    size: size + 1024,
    parts: [...gate.parts, ...attachments.parts, ...draftCommitParts(deps, form, body.draft_id)],
  };
  return { draft, release: gate.release };
}
