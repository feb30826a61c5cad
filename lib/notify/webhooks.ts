/**
 * Webhook endpoints of a workspace: create (the `whsec_` secret is shown only then),
 * list, read, update, delete, and secret rotation (the previous secret keeps signing
 * alongside for {@linkcode ROTATION_OVERLAP_MS}).
 * @module
 */
import { z } from "zod";
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { newId } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";
import { EVENT_TYPES, type EventType } from "./events.ts";
import { checkTargetUrl, TargetRefused } from "./ssrf.ts";

/** How long a rotated-out secret keeps signing: 24 h. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;
/** Most endpoints per workspace. */
export const MAX_WEBHOOKS = 20;

/** A stored endpoint (secrets included; never returned as is). */
export interface Webhook {
  id: string;
  workspace_id: string;
  url: string;
  events: EventType[];
  /** Form public ids; empty means every form of the workspace. */
  forms: string[];
  enabled: boolean;
  secret: string;
  previous_secret: { secret: string; until: string } | null;
  /** First failure since the last success; 5 days of it disables the endpoint. */
  failing_since: string | null;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

/** An endpoint as the API and CLI show it. */
export type WebhookView = Omit<Webhook, "secret" | "previous_secret" | "workspace_id">;

/** Create body (API and CLI). */
export const webhookCreateSchema = z.object({
  url: z.string().max(2000),
  events: z.array(z.enum(EVENT_TYPES)).min(1).max(3).default(["submission.created"]),
  forms: z.array(z.string().max(100)).max(100).default([]),
}).strict();

/** PATCH body. */
export const webhookUpdateSchema = z.object({
  url: z.string().max(2000).optional(),
  events: z.array(z.enum(EVENT_TYPES)).min(1).max(3).optional(),
  forms: z.array(z.string().max(100)).max(100).optional(),
  enabled: z.boolean().optional(),
}).strict();

/** A new secret: `whsec_` + base64 of 32 random bytes. */
export function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

/** The public view of an endpoint. */
export function webhookView(w: Webhook): WebhookView {
  const { secret: _s, previous_secret: _p, workspace_id: _w, ...view } = w;
  return view;
}

function parseBody<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw errors.badRequest(`Invalid webhook: ${i.path.join(".") || "body"}: ${i.message}.`);
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

/** Creates an endpoint; returns it with its secret (the only time it is shown). */
export async function createWebhook(
  deps: Pick<Deps, "kv" | "now" | "config">,
  workspaceId: string,
  input: unknown,
): Promise<WebhookView & { secret: string }> {
  const body = parseBody(webhookCreateSchema, input);
  const url = checkUrl(deps, body.url);
  const existing = await listWebhooks(deps, workspaceId);
  if (existing.length >= MAX_WEBHOOKS) {
    throw new AppError(409, "conflict", `A workspace has at most ${MAX_WEBHOOKS} webhooks.`);
  }
  const ws = await deps.kv.get(keys.workspace(workspaceId));
  if (!ws.value) throw errors.notFound("Workspace not found.");
  const now = new Date(deps.now()).toISOString();
  const w: Webhook = {
    id: newId("whk"),
    workspace_id: workspaceId,
    url,
    events: [...new Set(body.events)],
    forms: [...new Set(body.forms)],
    enabled: true,
    secret: newSecret(),
    previous_secret: null,
    failing_since: null,
    disabled_reason: null,
    created_at: now,
    updated_at: now,
  };
  const listening = await readListeners(deps, workspaceId);
  const op = deps.kv.atomic()
    .check(ws)
    .set(keys.webhook(w.id), w)
    .set(keys.webhookByWorkspace(workspaceId, w.id), true);
  setListeners(op, listening, { ...listening.value, [w.id]: listensTo(w) });
  const res = await op.commit();
  if (!res.ok) throw new Error("webhook create conflicted");
  return { ...webhookView(w), secret: w.secret };
}

/** What one webhook listens to: its events and forms (empty: every form); none when off. */
export interface Listening {
  events: EventType[];
  forms: string[];
}

/** A workspace's listeners by webhook id, with the entry to check when writing them. */
export interface Listeners {
  entry: Deno.KvEntryMaybe<Record<string, Listening>>;
  value: Record<string, Listening>;
}

function listensTo(w: Webhook): Listening {
  return w.enabled ? { events: w.events, forms: w.forms } : { events: [], forms: [] };
}

/**
 * A workspace's listeners. Endpoints stored before the listeners value existed are read
 * once from the endpoints themselves (the next change of any of them writes the value).
 */
export async function readListeners(
  deps: Pick<Deps, "kv">,
  workspaceId: string,
): Promise<Listeners> {
  const entry = await deps.kv.get<Record<string, Listening>>(keys.webhookListeners(workspaceId));
  return await listenersOf(deps, workspaceId, entry);
}

/** A workspace's listeners from its `webhook_listeners` entry as read (see readListeners). */
export async function listenersOf(
  deps: Pick<Deps, "kv">,
  workspaceId: string,
  entry: Deno.KvEntryMaybe<Record<string, Listening>>,
): Promise<Listeners> {
  if (entry.value) return { entry, value: entry.value };
  const value: Record<string, Listening> = {};
  for (const w of await listWebhooks(deps, workspaceId)) value[w.id] = listensTo(w);
  return { entry, value };
}

/** Whether `l` (an endpoint, or what it listens to) takes `event` of form `formId`. */
export function hears(l: Listening, event: EventType, formId: string): boolean {
  return l.events.includes(event) && (l.forms.length === 0 || l.forms.includes(formId));
}

/** Whether any webhook of the workspace listens to `event` of form `formId`. */
export function listens(l: Listeners, event: EventType, formId: string): boolean {
  return Object.values(l.value).some((x) => hears(x, event, formId));
}

/** Adds the write of a workspace's new listeners, checked against what was read, to `op`. */
function setListeners(
  op: Deno.AtomicOperation,
  read: Listeners,
  next: Record<string, Listening>,
): void {
  op.check(read.entry).set(read.entry.key, next);
}

/** A workspace's endpoints, oldest first. */
export async function listWebhooks(
  deps: Pick<Deps, "kv">,
  workspaceId: string,
): Promise<Webhook[]> {
  const ids: string[] = [];
  for await (const e of deps.kv.list({ prefix: keys.webhooksByWorkspace(workspaceId) })) {
    ids.push(e.key[2] as string);
  }
  const out: Webhook[] = [];
  for (let i = 0; i < ids.length; i += 10) {
    const got = await deps.kv.getMany<Webhook[]>(
      ids.slice(i, i + 10).map((id) => keys.webhook(id)),
    );
    for (const g of got) if (g.value) out.push(g.value);
  }
  return out;
}

/** An endpoint of the workspace (any other workspace's is the same 404). */
export async function requireWebhook(
  deps: Pick<Deps, "kv">,
  workspaceId: string | null,
  id: string,
): Promise<Deno.KvEntry<Webhook>> {
  const e = await deps.kv.get<Webhook>(keys.webhook(id));
  if (!e.value || (workspaceId !== null && e.value.workspace_id !== workspaceId)) {
    throw errors.notFound("Webhook not found.");
  }
  return e as Deno.KvEntry<Webhook>;
}

/**
 * Applies a change to an endpoint with a versionstamp check, retried on conflict.
 * Returns the new record.
 */
export async function mutateWebhook(
  deps: Pick<Deps, "kv">,
  workspaceId: string | null,
  id: string,
  change: (w: Webhook) => Webhook,
): Promise<Webhook> {
  for (let i = 0; i < 10; i++) {
    const e = await requireWebhook(deps, workspaceId, id);
    const next = change(e.value);
    const op = deps.kv.atomic().check(e).set(keys.webhook(id), next);
    const was = listensTo(e.value);
    const now = listensTo(next);
    if (JSON.stringify(was) !== JSON.stringify(now)) {
      const listening = await readListeners(deps, next.workspace_id);
      setListeners(op, listening, { ...listening.value, [id]: now });
    }
    const res = await op.commit();
    if (res.ok) return next;
  }
  throw new Error("webhook update kept conflicting");
}

/** PATCH: url, events, forms, enabled (re-enabling clears the failure state). */
export async function updateWebhook(
  deps: Pick<Deps, "kv" | "now" | "config">,
  workspaceId: string,
  id: string,
  input: unknown,
): Promise<WebhookView> {
  const body = parseBody(webhookUpdateSchema, input);
  const url = body.url === undefined ? undefined : checkUrl(deps, body.url);
  const w = await mutateWebhook(deps, workspaceId, id, (w) => ({
    ...w,
    url: url ?? w.url,
    events: body.events ? [...new Set(body.events)] : w.events,
    forms: body.forms ? [...new Set(body.forms)] : w.forms,
    enabled: body.enabled ?? w.enabled,
    failing_since: body.enabled ? null : w.failing_since,
    disabled_reason: body.enabled ? null : w.disabled_reason,
    updated_at: new Date(deps.now()).toISOString(),
  }));
  return webhookView(w);
}

/** Deletes an endpoint and its delivery log. */
export async function deleteWebhook(
  deps: Pick<Deps, "kv">,
  workspaceId: string | null,
  id: string,
): Promise<{ deleted: true; id: string }> {
  const e = await requireWebhook(deps, workspaceId, id);
  const listening = await readListeners(deps, e.value.workspace_id);
  const { [id]: _gone, ...rest } = listening.value;
  const op = deps.kv.atomic()
    .check(e)
    .delete(keys.webhook(id))
    .delete(keys.webhookByWorkspace(e.value.workspace_id, id));
  setListeners(op, listening, rest);
  const res = await op.commit();
  if (!res.ok) throw new AppError(409, "conflict", "Webhook changed meanwhile; try again.");
  for await (const d of deps.kv.list({ prefix: keys.webhookDeliveries(id) })) {
    await deps.kv.delete(d.key);
  }
  return { deleted: true, id };
}

/** Rotates the secret: returns the new one; the old one keeps signing for 24 h. */
export async function rotateWebhookSecret(
  deps: Pick<Deps, "kv" | "now">,
  workspaceId: string,
  id: string,
): Promise<WebhookView & { secret: string }> {
  const now = deps.now();
  const w = await mutateWebhook(deps, workspaceId, id, (w) => ({
    ...w,
    secret: newSecret(),
    previous_secret: {
      secret: w.secret,
      until: new Date(now + ROTATION_OVERLAP_MS).toISOString(),
    },
    updated_at: new Date(now).toISOString(),
  }));
  return { ...webhookView(w), secret: w.secret };
}

/** The secrets that sign now: the current one, and a rotated-out one within its 24 h. */
export function signingSecrets(w: Webhook, now: number): string[] {
  const out = [w.secret];
  if (w.previous_secret && Date.parse(w.previous_secret.until) > now) {
    out.push(w.previous_secret.secret);
  }
  return out;
}
