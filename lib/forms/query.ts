/**
 * Forms as the Server Data API reads them: the workspace-scoped lookup (another
 * workspace's form is the same 404 as a missing one) and the paged, searchable list.
 * @module
 */
import { z } from "zod";
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { type FormView, formView, getForm, listFormIds } from "./forms.ts";
import { formIdOfRef } from "./form_keys.ts";
import { keys } from "@/lib/kv/keys.ts";
import { getManyChunked } from "@/lib/kv/kv.ts";
import { pageQuerySchema, type Pagination, pagination } from "@/lib/http/pagination.ts";
import type { Form } from "@/lib/schemas.ts";

/** Forms `sortBy` values (CONTRACT); a leading `-` sorts descending. */
export const FORM_SORTS = [
  "created_at",
  "-created_at",
  "name",
  "-name",
  "updated_at",
  "-updated_at",
] as const;

/** Query of `GET /api/v1/server/forms`. */
export const formListQuerySchema = pageQuerySchema.extend({
  search: z.string().trim().max(200).optional(),
  sortBy: z.enum(FORM_SORTS).default("-created_at"),
});
/** A parsed forms-list query. */
export type FormListQuery = z.output<typeof formListQuerySchema>;

/**
 * The form `ref` names (a public id, or `key:<slug>`) if it belongs to `workspaceId`.
 * Missing, malformed and foreign ids all throw the one `Form not found.` 404, so a
 * response never tells them apart.
 */
export async function requireOwnForm(
  deps: Pick<Deps, "kv">,
  workspaceId: string,
  ref: string,
): Promise<Form> {
  const formId = await formIdOfRef(deps, workspaceId, ref);
  const form = formId ? await getForm(deps, formId) : null;
  if (!form || form.workspace_id !== workspaceId) throw errors.formNotFound();
  return form;
}

/**
 * A page of a workspace's forms. A workspace's forms are few (they are made by hand), so
 * they are loaded, filtered and sorted in memory; `search` is a case-insensitive
 * substring of the name. Ties sort by public id so pages never overlap.
 */
export async function listForms(
  deps: Pick<Deps, "kv">,
  workspaceId: string,
  q: FormListQuery,
): Promise<{ forms: FormView[]; pagination: Pagination }> {
  const ids = await listFormIds(deps, workspaceId);
  const entries = await getManyChunked<Form>(deps.kv, ids.map((id) => keys.form(id)));
  let forms = entries.map((e) => e.value).filter((f): f is Form =>
    f !== null && f.workspace_id === workspaceId
  );
  const needle = q.search?.toLowerCase();
  if (needle) forms = forms.filter((f) => f.name.toLowerCase().includes(needle));
  const desc = q.sortBy.startsWith("-");
  const field = q.sortBy.replace(/^-/, "") as "created_at" | "name" | "updated_at";
  forms.sort((a, b) => {
    const primary = field === "name"
      ? a.name.localeCompare(b.name, "en", { sensitivity: "base" })
      : a[field].localeCompare(b[field]);
    const order = primary || a.id.localeCompare(b.id);
    return desc ? -order : order;
  });
  const start = (q.page - 1) * q.limit;
  return {
    forms: forms.slice(start, start + q.limit).map(formView),
    pagination: pagination(q.page, q.limit, forms.length),
  };
}
