/**
 * Webhook endpoints of a workspace: the stored record and how the API and CLI show it (a
 * destination's URL masked), reads scoped by data mode, what each endpoint listens to, and
 * its signing secrets.
 * Creating and changing endpoints is in webhook_edits.ts.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { keys, type Mode } from "@/lib/kv/keys.ts";
import type { EventType } from "./events.ts";

/** What an endpoint receives: the signed standard body, or a chat service's own message. */
export const FORMATS = ["standard", "slack", "discord", "teams"] as const;
/** An endpoint's format; the non-standard ones are called destinations. */
export type Format = typeof FORMATS[number];

/** A stored endpoint (secrets included; never returned as is). */
export interface Webhook {
  id: string;
  workspace_id: string;
  /**
   * The data it receives: the mode of the key that created it (`live` from the admin UI and
   * the CLI unless `--mode test`).
   */
  mode: Mode;
  format: Format;
  /** For a destination the URL is its credential: views show only its host and last 4 characters. */
  url: string;
  events: EventType[];
  /** Form public ids; empty means every form of the workspace. */
  forms: string[];
  enabled: boolean;
  /** The signing secret (`whsec_...`); empty for destinations, which are not signed. */
  secret: string;
  previous_secret: { secret: string; until: string } | null;
  /** First failure since the last success; 5 days of it disables the endpoint. */
  failing_since: string | null;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

/** An endpoint as the API and CLI show it: no secrets, a destination's URL masked. */
export type WebhookView = Omit<Webhook, "secret" | "previous_secret" | "workspace_id">;

/** A destination URL as shown after creation: scheme, host and its last 4 characters. */
export function maskUrl(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}/…${url.slice(-4)}`;
}

/** A new secret: `whsec_` + base64 of 32 random bytes. */
export function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

/** The public view of an endpoint (a destination's URL masked). */
export function webhookView(w: Webhook): WebhookView {
  const { secret: _s, previous_secret: _p, workspace_id: _w, ...rest } = w;
  return { ...rest, url: w.format === "standard" ? w.url : maskUrl(w.url) };
}

/** An endpoint as answered to its creator: a standard one with its secret, shown only then. */
export type CreatedWebhook = WebhookView & { secret?: string };

/** The answer of a create (or a switch to the standard format): the secret only if it signs. */
export function withSecret(w: Webhook): CreatedWebhook {
  return w.format === "standard" ? { ...webhookView(w), secret: w.secret } : webhookView(w);
}

/**
 * The signing state after a PATCH to `format`: a destination keeps no secret; a switch from
 * a destination to standard needs the new URL in the same PATCH (the old one is another
 * service's credential and would show again) and gets a new secret, answered once.
 */
export function signingAfter(w: Webhook, format: Format, urlGiven: boolean): Partial<Webhook> {
  if (format !== "standard") return { format, secret: "", previous_secret: null };
  if (w.format === "standard") return {};
  if (!urlGiven) {
    throw errors.badRequest(
      "Invalid webhook: url: a switch to the standard format needs the new url in the same request.",
    );
  }
  return { format, secret: newSecret(), previous_secret: null };
}

/** What one webhook listens to: its mode, events and forms (empty: every form); none when off. */
export interface Listening {
  mode: Mode;
  events: EventType[];
  forms: string[];
}

/** A workspace's listeners by webhook id, with the entry to check when writing them. */
export interface Listeners {
  entry: Deno.KvEntryMaybe<Record<string, Listening>>;
  value: Record<string, Listening>;
}

/** What `w` listens to, as kept in its workspace's listeners value. */
export function listensTo(w: Webhook): Listening {
  return w.enabled
    ? { mode: w.mode, events: w.events, forms: w.forms }
    : { mode: w.mode, events: [], forms: [] };
}

/** A workspace's listeners as an edit reads them: with its feed heads, which it moves too. */
export interface ListenersRead extends Listeners {
  /** The live and test feed heads (`feed_seq`) as read with the listeners. */
  heads: Deno.KvEntryMaybe<number>[];
}

/** A workspace's listeners, for an edit (with its feed heads, see setListeners). */
export async function readListeners(
  deps: Pick<Deps, "kv">,
  workspaceId: string,
): Promise<ListenersRead> {
  const [entry, ...heads] = await deps.kv.getMany<[Record<string, Listening>, number, number]>([
    keys.webhookListeners(workspaceId),
    keys.feedSeq(workspaceId, "live"),
    keys.feedSeq(workspaceId, "test"),
  ]);
  return { ...listenersOf(entry), heads };
}

/**
 * A workspace's listeners from its `webhook_listeners` entry as read (every endpoint edit
 * writes it; absent: the workspace has no endpoint).
 */
export function listenersOf(entry: Deno.KvEntryMaybe<Record<string, Listening>>): Listeners {
  return { entry, value: entry.value ?? {} };
}

/**
 * Adds the write of a workspace's new listeners, checked against what was read, to `op`. It
 * also sets the workspace's feed heads again, to the same values: a submission commit that
 * announces to the listeners it holds checks the feed head, not the listeners
 * (submissions/commit.ts), so it fails and reads both again.
 */
export function setListeners(
  op: Deno.AtomicOperation,
  read: ListenersRead,
  next: Record<string, Listening>,
): void {
  op.check(read.entry).set(read.entry.key, next);
  for (const head of read.heads) op.check(head).set(head.key, head.value ?? 0);
}

/** A workspace's endpoints, oldest first; with `mode`, only that mode's. */
export async function listWebhooks(
  deps: Pick<Deps, "kv">,
  workspaceId: string,
  mode?: Mode,
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
  return mode ? out.filter((w) => w.mode === mode) : out;
}

/**
 * An endpoint of the workspace (null: of any workspace). With `mode` (an API key's), an
 * endpoint of the other mode is the same 404 as one of another workspace.
 */
export async function requireWebhook(
  deps: Pick<Deps, "kv">,
  workspaceId: string | null,
  id: string,
  mode?: Mode,
): Promise<Deno.KvEntry<Webhook>> {
  const e = await deps.kv.get<Webhook>(keys.webhook(id));
  const w = e.value;
  if (
    !w || (workspaceId !== null && w.workspace_id !== workspaceId) || (mode && w.mode !== mode)
  ) {
    throw errors.notFound("Webhook not found.");
  }
  return e as Deno.KvEntry<Webhook>;
}

/** The secrets that sign now: the current one, and a rotated-out one within its 24 h. */
export function signingSecrets(w: Webhook, now: number): string[] {
  const out = [w.secret];
  if (w.previous_secret && Date.parse(w.previous_secret.until) > now) {
    out.push(w.previous_secret.secret);
  }
  return out;
}
