/**
 * Creating and changing webhook endpoints: create (the `whsec_` secret is shown only then;
 * a destination, whose URL is its credential, has no secret and its URL is masked from the
 * first answer on), update, delete and secret rotation (the previous secret keeps signing
 * alongside for {@linkcode ROTATION_OVERLAP_MS}). Each change is audited in its own commit, with who
 * made it and from where, and never the secret.
 * @module
 */
import { z } from "zod";
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { newId } from "@/lib/ids.ts";
import { keys, type Mode } from "@/lib/kv/keys.ts";
import { commitWithRetry, deleteKeys, keysUnder } from "@/lib/kv/kv.ts";
import { type AuditAction, auditMutation } from "@/lib/privacy/audit.ts";
import { validationError } from "@/lib/http/validation.ts";
import { EVENT_TYPES } from "./events.ts";
import { checkTargetUrl, TargetRefused } from "./ssrf.ts";
import {
  type CreatedWebhook,
  FORMATS,
  listensTo,
  listWebhooks,
  newSecret,
  readListeners,
  requireWebhook,
  setListeners,
  signingAfter,
  type Webhook,
  type WebhookView,
  webhookView,
  withSecret,
} from "./webhooks.ts";

export type { CreatedWebhook } from "./webhooks.ts";

/** How long a rotated-out secret keeps signing: 24 h. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;
/** Most endpoints per workspace and mode (test endpoints never crowd out live ones). */
export const MAX_WEBHOOKS = 20;

/**
 * Who changes endpoints, for the audit log (`user:<email>`, `key:<prefix>` or `cli`). With
 * `mode` (an API key's), only that mode's endpoints exist for them and new ones get it;
 * without, every endpoint of the workspace is theirs and new ones are live.
 */
export interface WebhookActor {
  actor: string;
  ip?: string | null;
  mode?: Mode;
}

/** Create body (API and CLI). */
export const webhookCreateSchema = z.object({
  url: z.string().max(2000),
  format: z.enum(FORMATS).default("standard"),
  events: z.array(z.enum(EVENT_TYPES)).min(1).max(3).default(["submission.created"]),
  forms: z.array(z.string().max(100)).max(100).default([]),
}).strict();

/** PATCH body. */
export const webhookUpdateSchema = z.object({
  url: z.string().max(2000).optional(),
  format: z.enum(FORMATS).optional(),
  events: z.array(z.enum(EVENT_TYPES)).min(1).max(3).optional(),
  forms: z.array(z.string().max(100)).max(100).optional(),
  enabled: z.boolean().optional(),
}).strict();

function parseBody<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    throw errors.badRequest(`Invalid webhook: ${validationError(parsed.error, "json").message}`);
  }
  return parsed.data;
}

function checkUrl(deps: Pick<Deps, "config">, url: string): string {
  try {
    return checkTargetUrl(url, deps.config.notify.webhookAllowPrivate).toString();
  } catch (err) {
    if (err instanceof TargetRefused) throw errors.badRequest(`Invalid webhook: ${err.message}.`);
    throw err;
  }
}

/** The host (and port) of an endpoint's URL: what the audit log keeps of it. */
function hostOf(url: string): string {
  return new URL(url).host;
}

/** Adds the audit event of a change to `w` to `op`. */
function auditChange(
  op: Deno.AtomicOperation,
  now: number,
  by: WebhookActor,
  action: AuditAction,
  w: Webhook,
  details: Record<string, unknown> = {},
): void {
  auditMutation(op, now, {
    workspaceId: w.workspace_id,
    action,
    actor: by.actor,
    ip: by.ip,
    details: { webhook_id: w.id, mode: w.mode, ...details },
  });
}

/**
 * Creates an endpoint in `by.mode` (default live); returns it with its secret, shown only now
 * (a destination has none, and its URL shows masked already here).
 */
export async function createWebhook(
  deps: Pick<Deps, "kv" | "now" | "config">,
  workspaceId: string,
  input: unknown,
  by: WebhookActor,
): Promise<CreatedWebhook> {
  const body = parseBody(webhookCreateSchema, input);
  const url = checkUrl(deps, body.url);
  const now = new Date(deps.now()).toISOString();
  const w: Webhook = {
    id: newId("whk"),
    workspace_id: workspaceId,
    mode: by.mode ?? "live",
    format: body.format,
    url,
    events: [...new Set(body.events)],
    forms: [...new Set(body.forms)],
    enabled: true,
    secret: body.format === "standard" ? newSecret() : "",
    previous_secret: null,
    failing_since: null,
    disabled_reason: null,
    created_at: now,
    updated_at: now,
  };
  await commitWithRetry(deps.kv, async (op) => {
    const existing = await listWebhooks(deps, workspaceId, w.mode);
    if (existing.length >= MAX_WEBHOOKS) {
      throw new AppError(
        409,
        "conflict",
        `A workspace has at most ${MAX_WEBHOOKS} ${w.mode} webhooks.`,
      );
    }
    const ws = await deps.kv.get(keys.workspace(workspaceId));
    if (!ws.value) throw errors.notFound("Workspace not found.");
    const listening = await readListeners(deps, workspaceId);
    op.check(ws)
      .set(keys.webhook(w.id), w)
      .set(keys.webhookByWorkspace(workspaceId, w.id), true);
    setListeners(op, listening, { ...listening.value, [w.id]: listensTo(w) });
    auditChange(op, deps.now(), by, "webhook.created", w, {
      host: hostOf(w.url),
      format: body.format,
      events: w.events,
      forms: w.forms,
    });
    return true;
  });
  return withSecret(w);
}

/**
 * Applies a change to an endpoint in one checked commit (retried on conflict), with its
 * listeners when they change and, when `audit` returns one, the change's audit event.
 * `mode` scopes it as {@linkcode requireWebhook} does. Returns the new record.
 */
export async function mutateWebhook(
  deps: Pick<Deps, "kv" | "now">,
  workspaceId: string | null,
  id: string,
  change: (w: Webhook) => Webhook,
  opts: { mode?: Mode; audit?: (op: Deno.AtomicOperation, was: Webhook, now: Webhook) => void } =
    {},
): Promise<Webhook> {
  const next = await commitWithRetry(deps.kv, async (op) => {
    const e = await requireWebhook(deps, workspaceId, id, opts.mode);
    const next = change(e.value);
    op.check(e).set(keys.webhook(id), next);
    const was = listensTo(e.value);
    const now = listensTo(next);
    if (JSON.stringify(was) !== JSON.stringify(now)) {
      const listening = await readListeners(deps, next.workspace_id);
      setListeners(op, listening, { ...listening.value, [id]: now });
    }
    opts.audit?.(op, e.value, next);
    return next;
  });
  return next!;
}

/** What a PATCH changed, for the audit log (the URL by its host). */
function changes(was: Webhook, now: Webhook): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (was.url !== now.url) out.url = { from: hostOf(was.url), to: hostOf(now.url) };
  if (was.format !== now.format) out.format = now.format;
  if (JSON.stringify(was.events) !== JSON.stringify(now.events)) out.events = now.events;
  if (JSON.stringify(was.forms) !== JSON.stringify(now.forms)) out.forms = now.forms;
  if (was.enabled !== now.enabled) out.enabled = now.enabled;
  return out;
}

/**
 * PATCH: url, format, events, forms, enabled (re-enabling clears the failure state). The
 * answer carries the new signing secret when the endpoint just switched to standard.
 */
export async function updateWebhook(
  deps: Pick<Deps, "kv" | "now" | "config">,
  workspaceId: string,
  id: string,
  input: unknown,
  by: WebhookActor,
): Promise<CreatedWebhook> {
  const body = parseBody(webhookUpdateSchema, input);
  const url = body.url === undefined ? undefined : checkUrl(deps, body.url);
  let newlySigned = false;
  const w = await mutateWebhook(deps, workspaceId, id, (w) => {
    const signing = signingAfter(w, body.format ?? w.format, url !== undefined);
    newlySigned = signing.secret !== undefined && signing.secret !== "";
    return {
      ...w,
      ...signing,
      url: url ?? w.url,
      events: body.events ? [...new Set(body.events)] : w.events,
      forms: body.forms ? [...new Set(body.forms)] : w.forms,
      enabled: body.enabled ?? w.enabled,
      failing_since: body.enabled ? null : w.failing_since,
      disabled_reason: body.enabled ? null : w.disabled_reason,
      updated_at: new Date(deps.now()).toISOString(),
    };
  }, {
    mode: by.mode,
    audit: (op, was, now) => {
      const changed = changes(was, now);
      if (Object.keys(changed).length) {
        auditChange(op, deps.now(), by, "webhook.updated", now, { changed });
      }
    },
  });
  return newlySigned ? withSecret(w) : webhookView(w);
}

/** Deletes an endpoint (of any workspace when `workspaceId` is null), its delivery log and chains. */
export async function deleteWebhook(
  deps: Pick<Deps, "kv" | "now">,
  workspaceId: string | null,
  id: string,
  by: WebhookActor,
): Promise<{ deleted: true; id: string }> {
  await commitWithRetry(deps.kv, async (op) => {
    const e = await requireWebhook(deps, workspaceId, id, by.mode);
    const listening = await readListeners(deps, e.value.workspace_id);
    const { [id]: _gone, ...rest } = listening.value;
    op.check(e)
      .delete(keys.webhook(id))
      .delete(keys.webhookByWorkspace(e.value.workspace_id, id));
    setListeners(op, listening, rest);
    auditChange(op, deps.now(), by, "webhook.deleted", e.value, { host: hostOf(e.value.url) });
    return true;
  });
  for (const prefix of [keys.webhookDeliveries(id), keys.webhookChains(id)]) {
    await deleteKeys(deps.kv, await keysUnder(deps.kv, prefix));
  }
  return { deleted: true, id };
}

/** Rotates the secret: returns the new one; the old one keeps signing for 24 h. */
export async function rotateWebhookSecret(
  deps: Pick<Deps, "kv" | "now">,
  workspaceId: string,
  id: string,
  by: WebhookActor,
): Promise<WebhookView & { secret: string }> {
  const now = deps.now();
  const w = await mutateWebhook(deps, workspaceId, id, (w) => {
    if (w.format !== "standard") {
      throw errors.badRequest(
        "Invalid webhook: a destination is not signed: its URL is its credential. To replace it, PATCH the url.",
      );
    }
    return {
      ...w,
      secret: newSecret(),
      previous_secret: {
        secret: w.secret,
        until: new Date(now + ROTATION_OVERLAP_MS).toISOString(),
      },
      updated_at: new Date(now).toISOString(),
    };
  }, {
    mode: by.mode,
    audit: (op, _was, w) => auditChange(op, now, by, "webhook.secret_rotated", w),
  });
  return { ...webhookView(w), secret: w.secret };
}

/** Adds the audit event of a test event sent to `w` to `op`. */
export function auditTestSent(
  op: Deno.AtomicOperation,
  now: number,
  by: WebhookActor,
  w: Webhook,
  eventId: string,
): void {
  auditChange(op, now, by, "webhook.test_sent", w, { event_id: eventId });
}
