/**
 * Forms made and changed through an API key (the Server Data API, MCP, `deploy`): the same
 * definition checks and schema-version rules as the CLI and the admin editor (createForm,
 * updateForm), an optional key per form, a `422` listing each problem of a definition, and
 * one audit event per change naming the key, never the data.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors, type FieldError } from "@/lib/errors.ts";
import { audit, type AuditBy, auditMutation } from "@/lib/privacy/audit.ts";
import { type Form, formDefinitionSchema } from "@/lib/schemas.ts";
import { createForm, updateForm } from "./forms.ts";
import { keyTaken, setFormKey } from "./form_keys.ts";
import { keys } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";

/** Who changes a form through a key: the audit's actor and IP, and the key's name. */
export interface KeyEditor extends AuditBy {
  workspaceId: string;
  /** The API key's name, recorded with the change. */
  keyName: string;
  /** Which surface made the change. */
  via: "api" | "mcp";
  /** The key's mode: forms serve live visitors, so only a live key changes them. */
  mode: "live" | "test";
}

function assertLive(by: KeyEditor): void {
  if (by.mode !== "live") throw errors.liveKeyRequired();
}

/** A problem of a definition: where (a dotted path) and what. */
export interface DefinitionIssue {
  path: readonly PropertyKey[];
  message: string;
}

/** The `422` of a refused definition, one `errors` item per problem. */
export function definitionError(issues: DefinitionIssue[], input: unknown): AppError {
  const fields = (input as { fields?: Array<{ id?: unknown; name?: unknown }> })?.fields;
  const items: FieldError[] = issues.map((i) => {
    const at = i.path[0] === "fields" && typeof i.path[1] === "number" && Array.isArray(fields)
      ? fields[i.path[1]]
      : undefined;
    const id = typeof at?.id === "string"
      ? at.id
      : typeof at?.name === "string"
      ? `fld_${at.name}`
      : "";
    return {
      field: i.path.map(String).join(".") || "(root)",
      fieldId: id,
      message: i.message,
      type: "invalid_definition",
    };
  });
  return new AppError(422, "validation_failed", "The form definition is invalid.", {
    errors: items.slice(0, 50),
  });
}

/**
 * Checks `input` as a definition: a `422` for what the definition schema refuses, and any
 * `400` with `details` that createForm/updateForm raise (their further checks) also as a 422.
 */
async function checked<T>(input: unknown, run: () => Promise<T>): Promise<T> {
  const parsed = formDefinitionSchema.safeParse(input);
  if (!parsed.success) throw definitionError(parsed.error.issues, input);
  try {
    return await run();
  } catch (err) {
    const details = err instanceof AppError && err.status === 400 ? err.extra.details : null;
    if (!Array.isArray(details)) throw err;
    throw definitionError(
      details.map((d: string) => {
        const cut = d.indexOf(": ");
        const path = cut < 0 ? [] : d.slice(0, cut).split(".").map((p) => /^\d+$/.test(p) ? +p : p);
        return {
          path: path.filter((p) => p !== "(root)"),
          message: cut < 0 ? d : d.slice(cut + 2),
        };
      }),
      input,
    );
  }
}

/** Refuses (409) a key that a form other than `formId` holds in the workspace. */
async function assertKeyFree(
  deps: Pick<Deps, "kv">,
  workspaceId: string,
  key: string,
  formId: string | null,
): Promise<void> {
  const holder = await withKvRetry(() => deps.kv.get<string>(keys.formByKey(workspaceId, key)));
  if (holder.value && holder.value !== formId) throw keyTaken(key);
}

/** The definition a stored form has (every part the definition schema knows; secrets kept). */
export function definitionOf(form: Form): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const stored = form as unknown as Record<string, unknown>;
  for (const k of Object.keys(formDefinitionSchema.shape)) {
    if (stored[k] !== undefined && stored[k] !== null) out[k] = stored[k];
  }
  return out;
}

/**
 * `patch` over the form's definition, part by part: a given part replaces the stored one
 * (`fields` as a whole); `null` clears a part (or sets it to null where null means
 * something, e.g. `retention_days: null` keeps submissions forever). A CAPTCHA given
 * without its secret keeps the stored secret of the same provider.
 */
export function patchedDefinition(
  form: Form,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const def = definitionOf(form);
  const shape = formDefinitionSchema.shape as Record<string, { safeParse(v: unknown): unknown }>;
  for (const [k, v] of Object.entries(patch)) {
    if (v !== null) def[k] = v;
    else if (k in shape && (shape[k].safeParse(null) as { success: boolean }).success) {
      def[k] = null;
    } else delete def[k];
  }
  const captcha = patch.captcha as { provider?: string; secret?: string } | undefined;
  if (captcha && !captcha.secret && form.captcha?.secret) {
    if (captcha.provider === form.captcha.provider) {
      def.captcha = { ...captcha, secret: form.captcha.secret };
    }
  }
  return def;
}

/** Creates a form (with an optional key) for a key's workspace; audited in the same commit. */
export async function createFormByKey(
  deps: Pick<Deps, "kv" | "now">,
  by: KeyEditor,
  body: Record<string, unknown>,
): Promise<Form> {
  assertLive(by);
  const { key, ...definition } = body as { key?: string | null } & Record<string, unknown>;
  if (key) await assertKeyFree(deps, by.workspaceId, key, null);
  return await checked(definition, () =>
    createForm(deps, by.workspaceId, definition, {
      key: key ?? undefined,
      also: (op, form) =>
        auditMutation(op, deps.now(), {
          workspaceId: by.workspaceId,
          action: "form.created",
          actor: by.actor,
          ip: by.ip,
          details: {
            form: form.id,
            name: form.name,
            key: key ?? null,
            api_key: by.keyName,
            via: by.via,
          },
        }),
    }));
}

/**
 * Changes part of a form's definition (and its key: a string sets it, null removes it):
 * checked as a whole before anything is saved; `schema_version` rises as updateForm says.
 */
export async function patchFormByKey(
  deps: Pick<Deps, "kv" | "now">,
  by: KeyEditor,
  form: Form,
  body: Record<string, unknown>,
): Promise<Form> {
  assertLive(by);
  const { key, ...patch } = body as { key?: string | null } & Record<string, unknown>;
  const definition = patchedDefinition(form, patch);
  const rekey = key !== undefined && key !== (form.key ?? null);
  if (rekey && key) await assertKeyFree(deps, by.workspaceId, key, form.id);
  let saved = await checked(
    definition,
    async () => Object.keys(patch).length ? await updateForm(deps, form.id, definition, by) : form,
  );
  if (rekey) saved = await setFormKey(deps, form.id, key);
  await audit(deps, {
    workspaceId: by.workspaceId,
    action: "form.changed",
    actor: by.actor,
    ip: by.ip,
    details: {
      form: form.id,
      key: saved.key ?? null,
      changed: Object.keys(body),
      schema_version: saved.schema_version,
      api_key: by.keyName,
      via: by.via,
    },
  });
  return saved;
}
