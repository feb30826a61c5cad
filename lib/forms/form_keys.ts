/**
 * Form keys: a slug per form, unique in its workspace, that names the form wherever the
 * Server Data API takes a public id (`key:<slug>`), so code (formwell.json, scripts) can
 * name forms before their public ids exist.
 * @module
 */
import { z } from "zod";
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { keys } from "@/lib/kv/keys.ts";
import { commitWithRetry, withKvRetry } from "@/lib/kv/kv.ts";
import type { Form } from "@/lib/schemas.ts";

/** A form key: lower-case letters, digits, `-` and `_`, starting with a letter or digit. */
export const FORM_KEY_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** What names a form by its key in a path: `key:<slug>`. */
export const KEY_REF_PREFIX = "key:";

/** A form key in a request. */
export const formKeySchema = z.string().regex(FORM_KEY_PATTERN, {
  error: "a slug of 1 to 64 lower-case letters, digits, - and _, starting with a letter or digit",
});

/** The 409 of a key another form of the workspace holds. */
export function keyTaken(key: string): AppError {
  return new AppError(409, "conflict", `Another form of this workspace has the key '${key}'.`);
}

/**
 * The public id a form reference names in a workspace: `key:<slug>` is looked up, anything
 * else is taken as a public id; null when no form has that key.
 */
export async function formIdOfRef(
  deps: Pick<Deps, "kv">,
  workspaceId: string,
  ref: string,
): Promise<string | null> {
  if (!ref.startsWith(KEY_REF_PREFIX)) return ref;
  const key = ref.slice(KEY_REF_PREFIX.length);
  if (!FORM_KEY_PATTERN.test(key)) return null;
  const entry = await withKvRetry(() => deps.kv.get<string>(keys.formByKey(workspaceId, key)));
  return entry.value;
}

/**
 * Gives a form the key `key` (null: none), moving its index in one checked commit; a key
 * another form of the workspace holds is a 409.
 */
export async function setFormKey(
  deps: Pick<Deps, "kv" | "now">,
  formId: string,
  key: string | null,
): Promise<Form> {
  const saved = await commitWithRetry(deps.kv, async (op) => {
    const entry = await withKvRetry(() => deps.kv.get<Form>(keys.form(formId)));
    if (!entry.value) throw errors.formNotFound();
    const { key: was, ...rest } = entry.value;
    if ((was ?? null) === key) return entry.value;
    const ws = entry.value.workspace_id;
    if (key) {
      const holder = await withKvRetry(() => deps.kv.get<string>(keys.formByKey(ws, key)));
      if (holder.value && holder.value !== formId) throw keyTaken(key);
      op.check(holder).set(holder.key, formId);
    }
    if (was) op.delete(keys.formByKey(ws, was));
    const next: Form = {
      ...rest,
      ...(key ? { key } : {}),
      updated_at: new Date(deps.now()).toISOString(),
    };
    op.check(entry).set(entry.key, next);
    return next;
  }, 10);
  return saved!;
}
