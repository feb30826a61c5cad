/**
 * Export by person: every submission of a workspace whose email-type field holds an
 * address, found through the email index, as the API shows one submission, with its form.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import type { Mode } from "@/lib/kv/keys.ts";
import { getForm } from "@/lib/forms/forms.ts";
import { copiesOf, type CopyCounts } from "@/lib/notify/copies.ts";
import type { Form } from "@/lib/schemas.ts";
import { readEntriesOf } from "@/lib/submissions/records.ts";
import { type PublicSubmission, submissionView } from "@/lib/submissions/query.ts";
import { emailDigest, emailMatches } from "./email_index.ts";
import { exportDrafts, type ExportedDraft } from "@/lib/drafts/privacy.ts";
import { type ExportedResumeMail, exportResumeMails } from "@/lib/drafts/resume_copies.ts";

/** Most submissions one export returns (a person with more is told so by `truncated`). */
export const EXPORT_LIMIT = 1000;

/** One exported submission: the public view plus its form. */
export type ExportedSubmission = PublicSubmission & { form: { public_id: string; name: string } };

/**
 * A person's submissions in a workspace and mode, by form then id (time), and in live mode
 * their drafts (saved progress not submitted) and the resume links mailed to the address.
 */
export async function exportByEmail(
  deps: Pick<Deps, "kv" | "secret" | "now">,
  workspaceId: string,
  mode: Mode,
  email: string,
): Promise<{
  submissions: ExportedSubmission[];
  drafts: ExportedDraft[];
  resume_mails: ExportedResumeMail[];
  truncated: boolean;
}> {
  const digest = emailDigest(deps.secret, email);
  const matches = await emailMatches(deps.kv, workspaceId, digest, mode, EXPORT_LIMIT + 1);
  const truncated = matches.length > EXPORT_LIMIT;
  const wanted = matches.slice(0, EXPORT_LIMIT);
  const entries = await readEntriesOf(deps.kv, wanted);
  const forms = new Map<string, Form | null>();
  const out: ExportedSubmission[] = [];
  for (const e of entries) {
    const s = e.value;
    if (!s || s.workspace_id !== workspaceId || s.mode !== mode) continue;
    if (!forms.has(s.form_id)) forms.set(s.form_id, await getForm(deps, s.form_id));
    const form = forms.get(s.form_id);
    if (!form) continue;
    out.push({
      form: { public_id: form.id, name: form.name },
      ...submissionView(s),
    });
  }
  const live = mode === "live";
  const drafts = live ? await exportDrafts(deps, workspaceId, email) : [];
  const resume_mails = live ? await exportResumeMails(deps, workspaceId, email) : [];
  return { submissions: out, drafts, resume_mails, truncated };
}

/** What erasing would delete: submissions per form public id, and notification copies. */
export interface ErasePreview {
  total: number;
  forms: Record<string, { name: string; count: number }>;
  copies: CopyCounts;
}

/** What erasing `email` would delete in the given modes (admin preview). */
export async function erasePreview(
  deps: Pick<Deps, "kv" | "secret" | "now">,
  workspaceId: string,
  modes: Mode[],
  email: string,
): Promise<ErasePreview> {
  const forms: Record<string, { name: string; count: number }> = {};
  const ids: string[] = [];
  for (const mode of modes) {
    for (const s of (await exportByEmail(deps, workspaceId, mode, email)).submissions) {
      forms[s.form.public_id] ??= { name: s.form.name, count: 0 };
      forms[s.form.public_id].count++;
      ids.push(s.id);
    }
  }
  return { total: ids.length, forms, copies: (await copiesOf(deps.kv, ids)).counts };
}
