/**
 * Forms: definition, storage, lookup and the public view.
 * @module
 */
import { assertNotSuspended, writableWorkspace } from "@/lib/workspaces/suspension.ts";
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { newFormId } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";
import { commitWithRetry, withKvRetry } from "@/lib/kv/kv.ts";
import { privacyOnCreate, privacyOnUpdate } from "@/lib/privacy/settings.ts";
import { type AuditInput, auditMutation } from "@/lib/privacy/audit.ts";
import { notificationChanges } from "@/lib/notify/settings.ts";
import { validityChanged } from "./versioning.ts";
import {
  type CaptchaConfig,
  type Field,
  type Form,
  type FormDefinition,
  formDefinitionSchema,
  type Workspace,
} from "@/lib/schemas.ts";

/** Parses a form definition; a bad one is a 400 listing each problem. */
export function parseFormDefinition(input: unknown): ReturnType<typeof formDefinitionSchema.parse> {
  const parsed = formDefinitionSchema.safeParse(input);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    throw new AppError(400, "bad_request", `Invalid form definition: ${detail.join("; ")}`, {
      details: detail,
    });
  }
  return parsed.data;
}

/** Gives every field a stable id: kept from `previous` by name, else `fld_<name>`. */
function assignFieldIds(
  fields: ReturnType<typeof parseFormDefinition>["fields"],
  previous: Field[],
): Field[] {
  const used = new Set(fields.map((f) => f.id).filter(Boolean) as string[]);
  return fields.map((f) => {
    if (f.id) return f as Field;
    const prior = previous.find((p) => p.name === f.name);
    let id = prior?.id ?? `fld_${f.name.replace(/[^A-Za-z0-9_-]/g, "_")}`;
    for (let i = 2; used.has(id) && !prior; i++) {
      id = `fld_${f.name.replace(/[^A-Za-z0-9_-]/g, "_")}_${i}`;
    }
    used.add(id);
    return { ...f, id };
  });
}

/**
 * Whether saving `definition` over `form` would raise its `schema_version` (the rule of
 * {@linkcode updateForm}); a definition that does not parse raises nothing (it is refused).
 */
export function raisesSchemaVersion(form: Form, definition: FormDefinition | unknown): boolean {
  const parsed = formDefinitionSchema.safeParse(definition);
  if (!parsed.success) return false;
  const { steps } = languageAndSteps(parsed.data, form);
  return validityChanged(form, { fields: assignFieldIds(parsed.data.fields, form.fields), steps });
}

/**
 * Creates a form in a workspace from a definition, with an optional `key` (checked unique
 * in the same commit; a conflicting commit is a 409); `also` adds to that commit what goes
 * with the form (an audit event).
 */
export async function createForm(
  deps: Pick<Deps, "kv" | "now">,
  workspaceId: string,
  definition: FormDefinition | unknown,
  opts: { key?: string; also?: (op: Deno.AtomicOperation, form: Form) => void } = {},
): Promise<Form> {
  const def = parseFormDefinition(definition);
  const now = new Date(deps.now()).toISOString();
  const form: Form = {
    id: newFormId(),
    workspace_id: workspaceId,
    ...(opts.key ? { key: opts.key } : {}),
    name: def.name,
    fields: assignFieldIds(def.fields, []),
    ...definedSettings(def),
    ...languageAndSteps(def),
    ...(def.spam_filter ? { spam_filter: def.spam_filter } : {}),
    ...(def.drafts ? { drafts: def.drafts } : {}),
    schema_version: 1,
    created_at: now,
    updated_at: now,
    ...hostedTexts(def),
  };
  const ws = await withKvRetry(() => deps.kv.get<Workspace>(keys.workspace(workspaceId)));
  if (!ws.value) throw errors.notFound("Workspace not found.");
  assertNotSuspended(ws.value);
  Object.assign(form, privacyOnCreate(def, ws.value)); // retention, IP and user-agent policy
  const res = await withKvRetry(() => {
    const op = deps.kv.atomic()
      .check(ws)
      .check({ key: keys.form(form.id), versionstamp: null })
      .set(keys.form(form.id), form)
      .set(keys.formByWorkspace(workspaceId, form.id), true);
    if (opts.key) {
      const byKey = keys.formByKey(workspaceId, opts.key);
      op.check({ key: byKey, versionstamp: null }).set(byKey, form.id);
    }
    opts.also?.(op, form);
    return op.commit();
  });
  if (!res.ok) throw new AppError(409, "conflict", "A concurrent change conflicted. Try again.");
  return form;
}

/**
 * Replaces a form's definition; bumps `schema_version` only when a change can change what
 * is valid (lib/forms/versioning.ts), never for labels, help text or order. With `who`, a
 * change of the notification settings is audited in the same commit.
 */
export async function updateForm(
  deps: Pick<Deps, "kv" | "now">,
  formId: string,
  definition: FormDefinition | unknown,
  who?: Pick<AuditInput, "actor" | "ip">,
): Promise<Form> {
  const def = parseFormDefinition(definition);
  const audited = who && ((op: Deno.AtomicOperation, before: Form, after: Form) => {
    const details = notificationChanges(before.notifications, after.notifications);
    if (!details) return;
    auditMutation(op, deps.now(), {
      workspaceId: before.workspace_id,
      action: "form.notifications_changed",
      ...who,
      details: { form: before.id, ...details },
    });
  });
  return await mutateForm(deps, formId, (before) => {
    const {
      intro: _i,
      thank_you: _t,
      spam_filter,
      drafts: keptDrafts,
      steps: _s,
      translations: _l,
      ...form
    } = before;
    // Omitted keeps the form's thresholds (an editor that does not show them keeps them).
    const filter = def.spam_filter === undefined ? spam_filter : def.spam_filter;
    const drafts = def.drafts === undefined ? keptDrafts : def.drafts;
    const fields = assignFieldIds(def.fields, form.fields);
    const kept = languageAndSteps(def, before);
    const changed = validityChanged(before, { fields, steps: kept.steps });
    return {
      ...form,
      name: def.name,
      fields,
      ...definedSettings(def),
      ...kept,
      schema_version: form.schema_version + (changed ? 1 : 0),
      ...privacyOnUpdate(def, form), // retention, IP and user-agent policy
      ...hostedTexts(def),
      ...(filter ? { spam_filter: filter } : {}),
      ...(drafts ? { drafts } : {}),
    };
  }, audited);
}

/** What a definition sets on its form besides name, fields, privacy and hosted texts. */
function definedSettings(def: ReturnType<typeof parseFormDefinition>) {
  return {
    captcha: def.captcha && def.captcha.provider !== "none" ? def.captcha : null,
    honeypot: def.honeypot ?? null,
    allowed_origins: def.allowed_origins,
    accepting: def.accepting,
    redirect: def.redirect ?? {},
    notifications: def.notifications ?? null,
  } satisfies Partial<Form>;
}

/**
 * A definition's steps, default language and translations over `before`'s: omitted keeps
 * them (an editor that does not show them keeps them), `[]` or `{}` clears them.
 */
function languageAndSteps(
  def: ReturnType<typeof parseFormDefinition>,
  before: Pick<Form, "steps" | "default_language" | "translations"> = {},
): Pick<Form, "steps" | "default_language" | "translations"> {
  const steps = def.steps ?? before.steps;
  const translations = def.translations ?? before.translations;
  const language = def.default_language ?? before.default_language;
  return {
    ...(steps?.length ? { steps } : {}),
    ...(language ? { default_language: language } : {}),
    ...(translations && Object.keys(translations).length ? { translations } : {}),
  };
}

/** The hosted page texts of a definition; blank ones are left out (an edit can clear them). */
function hostedTexts(
  def: { intro?: string; thank_you?: string },
): Pick<Form, "intro" | "thank_you"> {
  return {
    ...(def.intro ? { intro: def.intro } : {}),
    ...(def.thank_you ? { thank_you: def.thank_you } : {}),
  };
}

/** Opens or closes a form for submissions. */
export async function setAccepting(
  deps: Pick<Deps, "kv" | "now">,
  formId: string,
  accepting: boolean,
): Promise<Form> {
  return await mutateForm(deps, formId, (form) => ({ ...form, accepting }));
}

/**
 * Applies `change` to a stored form with a checked write (retried on conflict); `also` adds
 * to the same commit what goes with the change (an audit event).
 */
export async function mutateForm(
  deps: Pick<Deps, "kv" | "now">,
  formId: string,
  change: (form: Form) => Form,
  also?: (op: Deno.AtomicOperation, before: Form, after: Form) => void,
): Promise<Form> {
  const next = await commitWithRetry(deps.kv, async (op) => {
    const entry = await withKvRetry(() => deps.kv.get<Form>(keys.form(formId)));
    if (!entry.value) throw errors.formNotFound();
    const ws = await writableWorkspace(deps, entry.value.workspace_id);
    const next = { ...change(entry.value), updated_at: new Date(deps.now()).toISOString() };
    op.check(entry, ws).set(entry.key, next);
    also?.(op, entry.value, next);
    return next;
  }, 10);
  return next!;
}

/** A form by public id, or null. */
export async function getForm(deps: Pick<Deps, "kv">, formId: string): Promise<Form | null> {
  if (!isPlausibleFormId(formId)) return null;
  return (await withKvRetry(() => deps.kv.get<Form>(keys.form(formId)))).value;
}

/**
 * A form that may be served publicly, with its workspace. A missing form and a form of
 * a suspended workspace are the same 404.
 */
export async function requireLiveForm(
  deps: Pick<Deps, "reads" | "formWorkspaces">,
  formId: string,
): Promise<{ form: Form; workspace: Workspace }> {
  if (!isPlausibleFormId(formId)) throw errors.formNotFound();
  const wsId = deps.formWorkspaces.get(formId);
  const [formEntry, wsEntry] = await deps.reads.getMany<[Form, Workspace]>(
    wsId ? [keys.form(formId), keys.workspace(wsId)] : [keys.form(formId)],
  );
  const form = formEntry.value;
  if (!form) throw errors.formNotFound();
  const workspace = await workspaceOf(deps, form, wsId, wsId ? wsEntry.value : null);
  if (!workspace || workspace.suspended) throw errors.formNotFound();
  return { form, workspace };
}

/** Forms whose workspace deps.formWorkspaces remembers, at most (forgotten all at once). */
const MAX_FORM_WORKSPACES = 10_000;

/**
 * A form's workspace: `read`, when it was read with the form under the id `readId` (from
 * deps.formWorkspaces) and that is the form's workspace; otherwise read now, and the
 * form's workspace remembered so the next read can fetch both at once.
 */
export async function workspaceOf(
  deps: Pick<Deps, "reads" | "formWorkspaces">,
  form: Form,
  readId: string | undefined,
  read: Workspace | null,
): Promise<Workspace | null> {
  if (readId === form.workspace_id) return read;
  if (deps.formWorkspaces.size >= MAX_FORM_WORKSPACES) deps.formWorkspaces.clear();
  deps.formWorkspaces.set(form.id, form.workspace_id);
  return (await deps.reads.get<Workspace>(keys.workspace(form.workspace_id))).value;
}

/** Public ids are short; anything else is not looked up (keeps junk out of KV keys). */
export function isPlausibleFormId(id: string): boolean {
  return /^[A-Za-z0-9_-]{1,64}$/.test(id);
}

/** A field as clients see it (no internal state). */
export type PublicField = Field;

/** The schema response of CONTRACT: the form without secrets, and the CAPTCHA config. */
export function publicSchema(form: Form): {
  form: {
    public_id: string;
    name: string;
    fields: PublicField[];
    schema_version: number;
    accepting: boolean;
    honeypot: string | null;
    steps?: Form["steps"];
    default_language: string;
    translations?: Form["translations"];
    drafts?: { enabled: true; ttl_days: number };
  };
  captcha: { provider: string; siteKey: string | null } | null;
} {
  return {
    form: {
      public_id: form.id,
      name: form.name,
      fields: form.fields,
      schema_version: form.schema_version,
      accepting: form.accepting,
      honeypot: form.honeypot,
      ...(form.steps ? { steps: form.steps } : {}),
      default_language: form.default_language ?? "en",
      ...(form.translations ? { translations: form.translations } : {}),
      ...(form.drafts?.enabled
        ? { drafts: { enabled: true, ttl_days: form.drafts.ttl_days } }
        : {}),
    },
    captcha: form.captcha
      ? { provider: form.captcha.provider, siteKey: form.captcha.siteKey ?? null }
      : null,
  };
}

/** The form as the Server Data API and CLI show it: everything but CAPTCHA secrets. */
export function formView(form: Form): FormView {
  const { captcha, id, workspace_id: _ws, ...rest } = form;
  return {
    public_id: id,
    ...rest,
    captcha: captcha ? { ...captcha, secret: undefined } : null,
  };
}

/** A form as the Server Data API shows it: its public id, no workspace, no CAPTCHA secret. */
export type FormView = Omit<Form, "id" | "workspace_id" | "captcha"> & {
  public_id: string;
  captcha: (Omit<CaptchaConfig, "secret"> & { secret?: undefined }) | null;
};

/** The ids of a workspace's forms. */
export async function listFormIds(deps: Pick<Deps, "kv">, workspaceId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const e of deps.kv.list({ prefix: keys.formsByWorkspace(workspaceId) })) {
    ids.push(e.key[2] as string);
  }
  return ids;
}
