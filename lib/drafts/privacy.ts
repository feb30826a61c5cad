/**
 * Drafts are personal data: export and erase by email find a person's drafts through the
 * drafts' own email index (the HMAC digest of each email-type value), as they find
 * submissions. Drafts are live data only.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { getForm } from "@/lib/forms/forms.ts";
import { keys } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import { emailDigest } from "@/lib/privacy/email_index.ts";
import { deleteDraft } from "./store.ts";
import { draftListItem } from "./summary.ts";
import type { Draft, DraftListItem } from "./types.ts";

/** Most drafts one export returns. */
export const DRAFT_EXPORT_LIMIT = 1000;
const PAGE = 100;

/** One exported draft: as lists show it, with its form. */
export type ExportedDraft = DraftListItem & { form: { public_id: string; name: string } };

/** Up to `limit` index entries of a person's drafts: [form id, draft id]. */
async function matches(kv: Deno.Kv, workspaceId: string, digest: string, limit: number) {
  const out: [string, string][] = [];
  const prefix = keys.draftsByEmail(workspaceId, digest);
  for await (const e of kv.list({ prefix }, { limit })) {
    out.push([e.key[3] as string, e.key[4] as string]);
  }
  return out;
}

/** A person's drafts in a workspace (by form, then age), as an export shows them. */
export async function exportDrafts(
  deps: Pick<Deps, "kv" | "secret">,
  workspaceId: string,
  email: string,
): Promise<ExportedDraft[]> {
  const found = await matches(
    deps.kv,
    workspaceId,
    emailDigest(deps.secret, email),
    DRAFT_EXPORT_LIMIT,
  );
  const out: ExportedDraft[] = [];
  const names = new Map<string, string | null>();
  for (const [formId, id] of found) {
    const d = (await withKvRetry(() => deps.kv.get<Draft>(keys.draft(formId, id)))).value;
    if (!d || d.workspace_id !== workspaceId) continue;
    if (!names.has(formId)) names.set(formId, (await getForm(deps, formId))?.name ?? null);
    const name = names.get(formId);
    if (name === null || name === undefined) continue;
    out.push({ form: { public_id: formId, name }, ...draftListItem(d) });
  }
  return out;
}

/** Deletes every draft of a workspace indexed under an address digest; returns how many. */
export async function eraseDrafts(
  deps: Pick<Deps, "kv">,
  workspaceId: string,
  digest: string,
): Promise<number> {
  let removed = 0;
  for (;;) {
    const found = await matches(deps.kv, workspaceId, digest, PAGE);
    if (!found.length) return removed;
    for (const [formId, id] of found) {
      if (await deleteDraft(deps, formId, id)) removed++;
      // A draft gone by another path may have left its entry here only when a save
      // raced it; the entry goes either way, so the walk always moves on.
      await withKvRetry(() => deps.kv.delete(keys.draftByEmail(workspaceId, digest, formId, id)));
    }
  }
}
