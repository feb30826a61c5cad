/**
 * The submit pipeline shared by the JSON and the plain-HTML paths: every rule of SPEC
 * part 4 in order, ending in one group commit.
 * @module
 */
import { z } from "zod";
import type { KeyAuth } from "@/lib/keys/api_keys.ts";
import { checkKeyWorkspace, requireScope } from "@/lib/keys/api_keys.ts";
import { isPlainObject, MAX_STORED_BYTES, storedSize } from "@/lib/http/body.ts";
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { isPlausibleFormId, requireLiveForm, workspaceOf } from "@/lib/forms/forms.ts";
import {
  findReplay,
  type IdempotencyRecord,
  payloadHash,
  replayOrConflict,
} from "./idempotency.ts";
import { keys } from "@/lib/kv/keys.ts";
import { limitKey, type LimitSpend, spendQuietly, wouldAllow } from "@/lib/ratelimit/rate_limit.ts";
import type { Form, SubmissionSignals, Workspace } from "@/lib/schemas.ts";
import type { WriteOutcome } from "./writer.ts";
import { validateData, type ValueSource } from "@/lib/forms/validator.ts";
import { prepareAttachments } from "@/lib/uploads/files.ts";
import { captchaGate, checkOrigin, screenSubmit } from "@/lib/protection/gates.ts";
import { failuresIn } from "@/lib/protection/failures.ts";

/** The body of a submit, whichever content type carried it. */
export const submitBodySchema = z.object({
  data: z.record(z.string(), z.unknown()),
  captcha_token: z.string().max(10_000).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  schema_version: z.number().int().positive().optional(),
  /** When the client rendered the form (epoch ms), for the time-to-submit signal. */
  rendered_at: z.number().int().positive().optional(),
  redirect: z.string().max(2000).optional(),
}).strict();
/** A parsed submit body. */
export type SubmitBody = z.infer<typeof submitBodySchema>;

/** Parses a JSON submit body; a missing or non-object `data` is a 400 naming it. */
export function parseSubmitBody(raw: Record<string, unknown>): SubmitBody {
  if (!("data" in raw)) {
    throw errors.badRequest("Missing 'data': send the field values as a JSON object.");
  }
  if (!isPlainObject(raw.data)) {
    throw errors.badRequest("'data' must be a JSON object of field values.");
  }
  const parsed = submitBodySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue.path.join(".") || "body";
    const message = issue.code === "unrecognized_keys"
      ? `Unknown parameter(s): ${issue.keys.join(", ")}.`
      : `'${where}': ${issue.message}.`;
    throw errors.badRequest(message);
  }
  // zod's record drops a `__proto__` key; the parsed `data` keeps it, so it is an unknown field.
  return { ...parsed.data, data: raw.data };
}

/** The stored size of a submission's values and metadata; over the limit is 413. */
export function checkStoredSize(values: unknown, metadata: unknown): number {
  const size = storedSize({ values, metadata });
  if (size > MAX_STORED_BYTES) {
    throw errors.payloadTooLarge(
      `The submission's data and metadata exceed ${MAX_STORED_BYTES / 1024} KiB.`,
    );
  }
  return size;
}

/** Who is submitting and from where. */
export interface SubmitContext {
  formId: string;
  auth: KeyAuth | null;
  ip: string;
  identity: string;
  origin: string | null;
  userAgent: string | null;
  idempotencyKey?: string;
  /** What the key is compared on when not `data` (a multipart post: files by name and size). */
  payloadHash?: string;
  source: ValueSource;
  /** Called with the form once submit has read it live (CORS grants from that read). */
  onForm?: (form: Form) => void;
}

/** The form a submit targets; exported so other paths (no-JS errors) reuse the lookup. */
export async function loadSubmitTarget(
  deps: Pick<Deps, "reads" | "formWorkspaces">,
  ctx: Pick<SubmitContext, "formId" | "auth">,
): Promise<{ form: Form; workspace: Workspace }> {
  if (ctx.auth) requireScope(ctx.auth, "submit");
  const target = await requireLiveForm(deps, ctx.formId);
  if (ctx.auth && ctx.auth.workspace.id !== target.workspace.id) throw errors.formNotFound();
  return target;
}

/** The rate-limit spend of a submit: per workspace with a key, per client IP without. */
export function submitSpend(
  deps: Pick<Deps, "config">,
  ctx: Pick<SubmitContext, "auth" | "identity">,
): LimitSpend {
  return ctx.auth
    ? {
      route: "submit",
      identity: `ws:${ctx.auth.workspace.id}`,
      perMinute: deps.config.rateLimits.workspace,
    }
    : { route: "submit", identity: ctx.identity, perMinute: deps.config.rateLimits.submit };
}

/** The keys a submit reads first, in order (see readSubmitState). */
function stateKeys(
  formId: string,
  mode: "live" | "test",
  spend: LimitSpend,
  idempotencyKey: string | undefined,
): Deno.KvKey[] {
  const wanted: Deno.KvKey[] = [keys.form(formId), limitKey(spend)];
  if (idempotencyKey) {
    // The sequence rides along: every record is written with it, see SubmissionDraft.
    wanted.push(keys.idempotency(formId, mode, idempotencyKey), keys.submissionSeq(formId, mode));
  }
  return wanted;
}

/**
 * Runs SPEC part 4's submit rules and stores the submission exactly once. Rejected
 * attempts still count against the caller's rate limit.
 */
export async function submit(
  deps: Deps,
  ctx: SubmitContext,
  body: SubmitBody,
): Promise<WriteOutcome> {
  const spend = submitSpend(deps, ctx);
  return await countingRefusals(deps, spend, async () => {
    const state = await readSubmitState(deps, ctx, spend);
    return await admit(deps, ctx, body, state, spend);
  });
}

/** What a submit reads before deciding, fetched together. */
interface SubmitState {
  form: Form;
  workspace: Workspace;
  /** The caller's rate-limit state for this route. */
  limit: Deno.KvEntryMaybe<unknown>;
  /** A stored result under the request's Idempotency-Key, or null. */
  idempotency: IdempotencyRecord | null;
  /** The form's sequence versionstamp in the same snapshot (lets the writer skip a re-read). */
  seqSeen: string | null;
  /** A browser sender's protection failures in the window (0 for key calls). */
  failures: number;
}

/**
 * Reads the form, its workspace, the caller's rate-limit state, the idempotency record and
 * a browser sender's protection failures in ONE KV operation (the workspace in a second
 * one the first time a browser submits to a form): KV operations are the cost to count on
 * this path. A key's workspace is read here, not when the key was authenticated, and
 * checked as authenticateKey would.
 */
async function readSubmitState(
  deps: Pick<Deps, "reads" | "formWorkspaces" | "now">,
  ctx: SubmitContext,
  spend: LimitSpend,
): Promise<SubmitState> {
  if (ctx.auth) requireScope(ctx.auth, "submit");
  if (!isPlausibleFormId(ctx.formId)) throw errors.formNotFound();
  const mode = ctx.auth?.mode ?? "live";
  const wanted = stateKeys(ctx.formId, mode, spend, ctx.idempotencyKey);
  const wsId = ctx.auth?.workspace.id ?? deps.formWorkspaces.get(ctx.formId);
  const failuresAt = ctx.auth ? -1 : wanted.push(keys.protectionFailures(ctx.identity)) - 1;
  const wsAt = wsId ? wanted.push(keys.workspace(wsId)) - 1 : -1;
  const entries = await deps.reads.getMany(wanted);
  const [formEntry, limit] = entries;
  const [idem, seq] = ctx.idempotencyKey ? entries.slice(2, 4) : [];
  const read = wsAt >= 0 ? entries[wsAt].value as Workspace | null : null;
  const form = formEntry.value as Form | null;
  let workspace: Workspace | null;
  if (ctx.auth) {
    const own = checkKeyWorkspace(read);
    // A key of another workspace gets the same 404 as a missing form.
    workspace = form?.workspace_id === own.id ? own : null;
  } else {
    workspace = form ? await workspaceOf(deps, form, wsId, read) : null;
  }
  if (!form || !workspace || workspace.suspended) throw errors.formNotFound();
  ctx.onForm?.(form);
  return {
    form,
    workspace,
    limit,
    idempotency: (idem?.value ?? null) as IdempotencyRecord | null,
    seqSeen: seq?.versionstamp ?? null,
    failures: failuresAt >= 0 ? failuresIn(entries[failuresAt].value, deps.now()) : 0,
  };
}

/** Marks an error already counted against a rate limit, so outer layers do not count it again. */
const COUNTED = Symbol("counted");

/**
 * Runs `fn`; a refusal (an AppError other than 429) spends one unit of `spend`, once,
 * however many layers wrap it, so refused attempts cannot probe for free.
 */
export async function countingRefusals<T>(
  deps: Pick<Deps, "limits">,
  spend: LimitSpend,
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError && err.status !== 429 && !(COUNTED in err)) {
      Object.defineProperty(err, COUNTED, { value: true });
      await spendQuietly(deps, spend);
    }
    throw err;
  }
}

async function admit(
  deps: Deps,
  ctx: SubmitContext,
  body: SubmitBody,
  state: SubmitState,
  spend: LimitSpend,
): Promise<WriteOutcome> {
  const { form, workspace } = state;
  if (!wouldAllow(state.limit, deps.now(), spend.perMinute)) throw errors.rateLimited();
  checkOrigin(deps, form, ctx);
  const mode = ctx.auth?.mode ?? "live";
  const metadata = body.metadata ?? {};
  const hash = ctx.idempotencyKey ? ctx.payloadHash ?? await payloadHash(body.data, metadata) : "";
  if (state.idempotency && state.idempotency.expires_at > deps.now()) {
    return { replayed: true, body: replayOrConflict(state.idempotency, hash) };
  }
  if (!form.accepting) throw errors.formClosed();
  if (body.schema_version !== undefined && body.schema_version !== form.schema_version) {
    throw errors.schemaChanged(form.schema_version);
  }
  const failures = await screenSubmit(deps, ctx, form, body.data, state.failures);
  const { errors: fieldErrors, values } = validateData(form, body.data, ctx.source);
  if (fieldErrors.length) throw errors.validation(fieldErrors);
  // Resolves file references to verified grants (stored refs replace the client's).
  const attachments = await prepareAttachments(deps, form, mode, values);
  const size = checkStoredSize(values, metadata);
  // After validation, so a token is not spent at the provider on a 422.
  const gate = await captchaGate(
    deps,
    ctx,
    form,
    body.captcha_token,
    () => findReplay(deps, form.id, mode, ctx.idempotencyKey!, hash),
  );
  if (gate.replay) return { replayed: true, body: gate.replay };
  const signals: SubmissionSignals = {
    ip: ctx.ip,
    user_agent: ctx.userAgent?.slice(0, 256) ?? undefined,
    origin: ctx.origin?.slice(0, 300) ?? undefined,
    via_key: Boolean(ctx.auth),
    // A render time in the future is a skewed client clock, not a fast bot: no signal.
    fill_ms: body.rendered_at && body.rendered_at <= deps.now()
      ? deps.now() - body.rendered_at
      : undefined,
    captcha: gate.captcha,
    failures,
  };
  try {
    return await deps.writer.write({
      form,
      workspace,
      mode,
      fields: values,
      metadata,
      files: attachments.files,
      signals,
      idempotency: ctx.idempotencyKey
        ? { key: ctx.idempotencyKey, hash, seenAt: state.seqSeen }
        : undefined,
      limits: [spend],
      size: size + 1024,
      riders: [...gate.riders, ...attachments.riders],
    });
  } finally {
    gate.release();
  }
}
