/**
 * A resume link's recipient is personal data too: the address a visitor typed is kept in
 * the workspace's email log (and, without SMTP, its outbox) for their 30 days. Each such
 * mail gets an id its copies are indexed by (lib/notify/copies.ts), and an index entry
 * under the HMAC digest of the address, so export by email lists the mails and erase by
 * email removes them, whatever drafts or submissions the person has.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { getForm } from "@/lib/forms/forms.ts";
import { keys } from "@/lib/kv/keys.ts";
import { deleteKeys, getManyChunked, keysUnder } from "@/lib/kv/kv.ts";
import { COPY_KEEP_MS } from "@/lib/notify/copies.ts";
import { emailDigest } from "@/lib/privacy/email_index.ts";

/** The index outlives the copies it points to by a day (KV's expiry is lazy). */
const INDEX_KEEP_MS = COPY_KEEP_MS + 86_400_000;
/** Most resume mails one export lists. */
const EXPORT_LIMIT = 1000;
const PAGE = 100;

/** A resume-link mail as export by email shows it (the link itself is never shown). */
export interface ExportedResumeMail {
  id: string;
  form: { public_id: string; name: string };
  /** When it was asked for. */
  sent_at: string;
}

/** Adds to `op` the index entry of resume mail `mailId` of `formId` sent to `email`. */
export function indexResumeMail(
  op: Deno.AtomicOperation,
  secret: Uint8Array,
  o: { workspaceId: string; formId: string; mailId: string; email: string; at: number },
): void {
  const key = keys.resumeMailByEmail(
    o.workspaceId,
    emailDigest(secret, o.email),
    o.formId,
    o.mailId,
  );
  op.set(key, o.at, { expireIn: INDEX_KEEP_MS });
}

/** The resume mails sent to `email` in a workspace, kept (the last 30 days), by form. */
export async function exportResumeMails(
  deps: Pick<Deps, "kv" | "secret" | "now">,
  workspaceId: string,
  email: string,
): Promise<ExportedResumeMail[]> {
  const prefix = keys.resumeMailsByEmail(workspaceId, emailDigest(deps.secret, email));
  const since = deps.now() - COPY_KEEP_MS;
  const names = new Map<string, string | null>();
  const out: ExportedResumeMail[] = [];
  for await (const e of deps.kv.list<number>({ prefix }, { limit: EXPORT_LIMIT })) {
    if (e.value <= since) continue;
    const [formId, id] = [String(e.key[3]), String(e.key[4])];
    if (!names.has(formId)) names.set(formId, (await getForm(deps, formId))?.name ?? null);
    const name = names.get(formId);
    if (!name) continue;
    out.push({ id, form: { public_id: formId, name }, sent_at: new Date(e.value).toISOString() });
  }
  return out;
}

/**
 * Removes every kept copy of the resume mails sent to an address digest (email log and
 * outbox entries) with their indexes; returns how many copies went.
 */
export async function eraseResumeMails(
  deps: Pick<Deps, "kv">,
  workspaceId: string,
  digest: string,
): Promise<number> {
  let removed = 0;
  const prefix = keys.resumeMailsByEmail(workspaceId, digest);
  for (;;) {
    const entries: Deno.KvKey[] = [];
    for await (const e of deps.kv.list({ prefix }, { limit: PAGE })) entries.push(e.key);
    if (!entries.length) return removed;
    for (const entry of entries) {
      const index = await keysUnder(deps.kv, keys.notifyCopies(String(entry[4])));
      const copies = index.map((k) => k.slice(2));
      const found = await getManyChunked(deps.kv, copies);
      removed += found.filter((e) => e.versionstamp !== null).length;
      await deleteKeys(deps.kv, [...copies, ...index, entry]);
    }
  }
}
