/**
 * Stage three of a submit, screen: SPEC part 4's refusals that need nothing but what the
 * read stage fetched, in order, up to the idempotent replay. A post carrying files is also
 * validated here, so a refused post stores no file.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { payloadHash, replayOrConflict } from "./idempotency.ts";
import { wouldAllow } from "@/lib/ratelimit/rate_limit.ts";
import type { LimitSpend } from "@/lib/ratelimit/types.ts";
import { invalid, validateData } from "@/lib/forms/validator.ts";
import { captchaRequired } from "@/lib/protection/captcha.ts";
import { checkOrigin, screenSubmit } from "@/lib/protection/gates.ts";
import { oversizeErrors } from "./form_post.ts";
import type { SubmitInput } from "./parse.ts";
import type { SubmitState } from "./read.ts";
import type { CreatedBody, SubmitContext } from "./types.ts";

/** What passed the screen: the payload digest, the sender's failures, or a replay. */
export interface Screened {
  /** The digest an Idempotency-Key is compared on ("" without a key). */
  hash: string;
  /** A browser sender's protection failures in the window (a scoring signal). */
  failures: number;
  /** The original result when the key replays. */
  replay?: CreatedBody;
}

/**
 * Rate limit (429), origin (403), idempotent replay (or 409), accepting (423), schema
 * version (409), repeat offender and honeypot (403); with files, then also a missing
 * CAPTCHA token (403) and the fields and file sizes (422).
 */
export async function screen(
  deps: Pick<Deps, "config" | "kv" | "now" | "knownFailures">,
  ctx: SubmitContext,
  input: SubmitInput,
  state: SubmitState,
  spend: LimitSpend,
): Promise<Screened> {
  const { form } = state;
  const { body } = input;
  if (!wouldAllow(state.limit, deps.now(), spend.perMinute)) throw errors.rateLimited();
  checkOrigin(deps, form, ctx);
  const hash = ctx.idempotencyKey
    ? ctx.payloadHash ?? await payloadHash(body.data, body.metadata ?? {})
    : "";
  if (state.idempotency && state.idempotency.expires_at > deps.now()) {
    return { hash, failures: 0, replay: replayOrConflict(state.idempotency, hash) };
  }
  if (!form.accepting) throw errors.formClosed();
  if (body.schema_version !== undefined && body.schema_version !== form.schema_version) {
    throw errors.schemaChanged(form.schema_version);
  }
  const failures = await screenSubmit(deps, ctx, form, body.data, state.failures);
  if (input.files.length) screenBeforeFiles(ctx, input, state);
  return { hash, failures };
}

/**
 * Before any posted file is stored: the CAPTCHA token must be there, and the other fields
 * and the files' sizes must validate (files stand in as placeholders).
 */
function screenBeforeFiles(ctx: SubmitContext, input: SubmitInput, state: SubmitState): void {
  const { form } = state;
  if (!ctx.auth && captchaRequired(form) && !input.body.captcha_token) {
    throw errors.captchaRequired();
  }
  const placeholders = Object.fromEntries(input.files.map((f) => [f.field.name, { path: "-" }]));
  const pre = validateData(form, { ...input.body.data, ...placeholders }, ctx.source, {
    asked: ctx.language,
  });
  const oversize = oversizeErrors(input.files);
  if (pre.errors.length || oversize.length) throw invalid(pre, oversize);
}
