/**
 * Stage two of a submit, read: the form, its workspace, the caller's rate-limit state, the
 * idempotency record and a browser sender's protection failures, in one KV operation.
 * @module
 */
import { checkKeyWorkspace, requireScope } from "@/lib/keys/auth.ts";
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { isPlausibleFormId, requireLiveForm, workspaceOf } from "@/lib/forms/forms.ts";
import type { IdempotencyRecord } from "./idempotency.ts";
import { keys } from "@/lib/kv/keys.ts";
import { limitId, limitKey, type LimitSpend } from "@/lib/ratelimit/rate_limit.ts";
import type { Form, Workspace } from "@/lib/schemas.ts";
import { failuresIn, learnFailures } from "@/lib/protection/failures.ts";
import type { SubmitContext } from "./types.ts";

/** What a submit reads before deciding, fetched together. */
export interface SubmitState {
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

/** The form a submit targets and its workspace. */
export interface SubmitTarget {
  form: Form;
  workspace: Workspace;
}

/**
 * The form a submit targets, read before its body when the body's shape depends on it (a
 * form post), with the key's scope checked: the read stage then takes it as read.
 */
export async function loadSubmitTarget(
  deps: Pick<Deps, "reads" | "formWorkspaces">,
  ctx: Pick<SubmitContext, "formId" | "auth">,
): Promise<SubmitTarget> {
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

/** The keys a submit reads first, in order (see readSubmitState); the form unless known. */
function stateKeys(
  formId: string,
  mode: "live" | "test",
  idempotencyKey: string | undefined,
  formKnown: boolean,
): Deno.KvKey[] {
  const wanted: Deno.KvKey[] = formKnown ? [] : [keys.form(formId)];
  if (idempotencyKey) {
    // The sequence rides along: every record is written with it, see SubmissionDraft.
    wanted.push(keys.idempotency(formId, mode, idempotencyKey), keys.submissionSeq(formId, mode));
  }
  return wanted;
}

/**
 * Reads the form, its workspace, the caller's rate-limit state (unless this process knows it
 * from its own last spend), the idempotency record and a browser sender's protection
 * failures (unless this process knows them: protection/failures.ts) in ONE KV operation
 * (the workspace in a second one the first time a browser submits to a form): KV operations
 * are the cost to count on this path. A key's workspace is read here, not when the key was
 * authenticated, and checked as authenticateKey would. With `target` (a form post, whose
 * route read the form and checked the key's scope before its body), neither the form nor
 * its workspace is read again.
 */
export async function readSubmitState(
  deps: Pick<Deps, "reads" | "formWorkspaces" | "now" | "entryLocks" | "knownFailures">,
  ctx: SubmitContext,
  spend: LimitSpend,
  target?: SubmitTarget,
): Promise<SubmitState> {
  if (!target) {
    if (ctx.auth) requireScope(ctx.auth, "submit");
    if (!isPlausibleFormId(ctx.formId)) throw errors.formNotFound();
  }
  const mode = ctx.auth?.mode ?? "live";
  const wanted = stateKeys(ctx.formId, mode, ctx.idempotencyKey, target !== undefined);
  const at = target ? 0 : 1;
  const wsId = target ? undefined : ctx.auth?.workspace.id ?? deps.formWorkspaces.get(ctx.formId);
  // A browser sender's failures, unless this process read or wrote them lately.
  const knownFailures = ctx.auth ? null : deps.knownFailures.get(ctx.identity);
  const failuresAt = ctx.auth || knownFailures !== undefined
    ? -1
    : wanted.push(keys.protectionFailures(ctx.identity)) - 1;
  const wsAt = wsId ? wanted.push(keys.workspace(wsId)) - 1 : -1;
  // A budget this process spends from is known as its last commit left it (another
  // instance can only have spent more: the writer's check catches that).
  const known = deps.entryLocks.known(limitId(spend));
  const limitAt = known ? -1 : wanted.push(limitKey(spend)) - 1;
  const entries = wanted.length ? await deps.reads.getMany(wanted) : [];
  const limit = known ?? entries[limitAt];
  const [idem, seq] = ctx.idempotencyKey ? entries.slice(at, at + 2) : [];
  // A key's workspace is checked where a JSON submit's is: here, after the form's checks.
  if (target && ctx.auth) checkKeyWorkspace(target.workspace);
  const { form, workspace } = target ??
    await readTarget(deps, ctx, entries[0], wsAt >= 0 ? entries[wsAt] : undefined, wsId);
  ctx.onForm?.(form);
  return {
    form,
    workspace,
    limit,
    idempotency: (idem?.value ?? null) as IdempotencyRecord | null,
    seqSeen: seq?.versionstamp ?? null,
    failures: ctx.auth ? 0 : failuresIn(
      failuresAt >= 0
        ? learnFailures(deps, ctx.identity, entries[failuresAt].value)
        : knownFailures ?? null,
      deps.now(),
    ),
  };
}

/** The form and workspace of the read stage's entries (a key's workspace checked). */
async function readTarget(
  deps: Pick<Deps, "reads" | "formWorkspaces">,
  ctx: SubmitContext,
  formEntry: Deno.KvEntryMaybe<unknown>,
  wsEntry: Deno.KvEntryMaybe<unknown> | undefined,
  wsId: string | undefined,
): Promise<SubmitTarget> {
  const read = wsEntry ? wsEntry.value as Workspace | null : null;
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
  return { form, workspace };
}
