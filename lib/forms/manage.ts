/**
 * Whole-form actions of the admin: duplicate, archive/unarchive, delete. Deleting removes
 * every submission (both modes) through deleteSubmissions, the path every other delete
 * takes (indexes, counters, files via the delete_files job), then the form and its keys.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { searchPrefixes } from "@/lib/search/entries.ts";
import { keys, type Mode } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import type { Form } from "@/lib/schemas.ts";
import { deleteSubmissions, MAX_DELETE_IDS } from "@/lib/submissions/delete.ts";
import { indexedId } from "@/lib/submissions/indexes.ts";
import { createForm, mutateForm } from "./forms.ts";

/** A copy of `form` in its workspace: same fields and settings, closed, named "… (copy)". */
export async function duplicateForm(deps: Pick<Deps, "kv" | "now">, form: Form): Promise<Form> {
  return await createForm(deps, form.workspace_id, {
    name: `${form.name} (copy)`.slice(0, 200),
    fields: form.fields.map(({ id: _id, ...f }) => f),
    captcha: form.captcha,
    honeypot: form.honeypot,
    allowed_origins: form.allowed_origins,
    accepting: false,
    redirect: form.redirect.success || form.redirect.error ? form.redirect : undefined,
  });
}

/** Archives (closes it and lists it apart) or brings back a form; unarchiving leaves it closed. */
export async function setArchived(
  deps: Pick<Deps, "kv" | "now">,
  formId: string,
  archived: boolean,
): Promise<Form> {
  return await mutateForm(deps, formId, (form) => {
    const { archived_at: _was, ...rest } = form;
    return archived
      ? { ...rest, accepting: false, archived_at: new Date(deps.now()).toISOString() }
      : rest;
  });
}

/**
 * Per-form key families left once the submissions are gone (counters, marks, analytics, the
 * search index's counters).
 */
function formPrefixes(formId: string): Deno.KvKey[] {
  return [
    keys.submissionsRead(formId),
    keys.submissionVerdicts(formId),
    keys.importedRows(formId),
    keys.feedRecords(formId),
    ...(["live", "test"] as Mode[]).flatMap((m) => [
      keys.analyticsOf(formId, m),
      keys.submissionSeq(formId, m),
      keys.submissionCountsOf(formId, m),
      keys.submissionBlocksOf(formId, m),
      keys.submissionDailiesOf(formId, m),
      keys.idempotencyOf(formId, m),
      ...searchPrefixes(formId, m),
    ]),
  ];
}

/**
 * Deletes a form with everything it owns. It is closed first, so no submission arrives
 * while its submissions are removed in batches; returns how many were deleted.
 */
export async function deleteForm(deps: Deps, form: Form): Promise<number> {
  await mutateForm(deps, form.id, (f) => ({ ...f, accepting: false }));
  let deleted = 0;
  for (const mode of ["live", "test"] as Mode[]) {
    const prefix = keys.submissionsByNumber(form.id, mode);
    for (;;) {
      const ids: string[] = [];
      for await (const e of deps.kv.list({ prefix }, { limit: MAX_DELETE_IDS })) {
        ids.push(indexedId(e.value));
      }
      if (!ids.length) break;
      const res = await deleteSubmissions(deps, form, mode, ids);
      deleted += res.deleted;
      if (!res.deleted) break;
    }
  }
  const res = await withKvRetry(() => {
    const op = deps.kv.atomic()
      .delete(keys.form(form.id))
      .delete(keys.formByWorkspace(form.workspace_id, form.id));
    if (form.key) op.delete(keys.formByKey(form.workspace_id, form.key));
    return op.commit();
  });
  if (!res.ok) throw new Error("form delete failed");
  for (const prefix of formPrefixes(form.id)) {
    for await (const e of deps.kv.list({ prefix })) await deps.kv.delete(e.key);
  }
  return deleted;
}
