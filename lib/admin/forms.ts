/**
 * What the admin's form pages need beyond lib/forms/forms.ts: the list with submission counts,
 * and turning the editor's posted fields into a form definition.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { z } from "zod";
import { listFormIds } from "@/lib/forms/forms.ts";
import { keys, type Mode, type StatusBucket } from "@/lib/kv/keys.ts";
import { getManyChunked, u64Value } from "@/lib/kv/kv.ts";
import type { FieldInput, Form, FormDefinition } from "@/lib/schemas.ts";
import { notificationsFromPost } from "@/lib/admin/notify_settings.ts";

/** A form with its live submission counts. */
export interface FormSummary {
  form: Form;
  total: number;
  spam: number;
}

/** Counts of one form and mode, per status bucket, from the exact counters. */
export async function submissionCounts(
  deps: Pick<Deps, "kv">,
  formId: string,
  mode: Mode = "live",
): Promise<Record<StatusBucket, number>> {
  const buckets: StatusBucket[] = ["all", "completed", "suspicious", "spam"];
  const entries = await getManyChunked(
    deps.kv,
    buckets.map((b) => keys.submissionCount(formId, mode, b)),
  );
  return Object.fromEntries(buckets.map((b, i) => [b, u64Value(entries[i].value)])) as Record<
    StatusBucket,
    number
  >;
}

/** The forms of a workspace, newest first, with live totals and spam counts. */
export async function listFormSummaries(
  deps: Pick<Deps, "kv">,
  workspaceId: string,
): Promise<FormSummary[]> {
  const ids = await listFormIds(deps, workspaceId);
  const forms = (await getManyChunked<Form>(deps.kv, ids.map((id) => keys.form(id))))
    .map((e) => e.value).filter((f): f is Form => f !== null);
  const counters = await getManyChunked(
    deps.kv,
    forms.flatMap((f) => [
      keys.submissionCount(f.id, "live", "all"),
      keys.submissionCount(f.id, "live", "spam"),
    ]),
  );
  return forms
    .map((form, i) => ({
      form,
      total: u64Value(counters[2 * i].value),
      spam: u64Value(counters[2 * i + 1].value),
    }))
    .sort((a, b) => b.form.created_at.localeCompare(a.form.created_at));
}

function lines(text: string): string[] {
  return text.split(/[\r\n,]+/).map((s) => s.trim()).filter(Boolean);
}

/**
 * What the field builder needs to show a field again (strings where it edits text, lists
 * where it joins them). Domain rules (name syntax, known types, ranges) are left to
 * `parseFormDefinition`, which names each problem; unknown keys pass through to it too.
 */
const editorFieldsSchema = z.array(
  z.looseObject({
    id: z.string().optional(),
    name: z.string(),
    type: z.string(),
    label: z.string().optional(),
    placeholder: z.string().optional(),
    help: z.string().optional(),
    pattern: z.string().optional(),
    required: z.boolean().optional(),
    minLength: z.union([z.number(), z.string()]).optional(),
    maxLength: z.union([z.number(), z.string()]).optional(),
    min: z.union([z.number(), z.string()]).optional(),
    max: z.union([z.number(), z.string()]).optional(),
    maxSizeMB: z.union([z.number(), z.string()]).optional(),
    options: z.array(z.string()).optional(),
    allowedTypes: z.array(z.string()).optional(),
  }),
);

/** The editor's posted definition; `problems` is non-empty when its field list was unreadable. */
export interface PostedDefinition {
  def: FormDefinition;
  /** Why `fields_json` was refused; then `def.fields` holds the fallback fields instead. */
  problems: string[];
}

/** The builder's steps and translations as posted (the definition's schema checks them). */
function postedJson(raw: string | null, name: string, empty: unknown): {
  value?: unknown;
  problems: string[];
} {
  if (raw === null || raw.trim() === "") return { value: empty, problems: [] };
  try {
    return { value: JSON.parse(raw), problems: [] };
  } catch {
    return { problems: [`${name}: the list is not valid JSON`] };
  }
}

function postedFields(raw: string | null): { fields?: FieldInput[]; problems: string[] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw || "[]");
  } catch {
    return { problems: ["fields: the field list is not valid JSON"] };
  }
  const res = editorFieldsSchema.safeParse(parsed);
  if (res.success) return { fields: res.data as FieldInput[], problems: [] };
  return {
    problems: res.error.issues.map((i) => `${["fields", ...i.path].join(".")}: ${i.message}`),
  };
}

/**
 * The definition the editor posted. `fields_json` comes from the field-builder island; a
 * list the builder could not show again (hand-made or corrupted posts) is refused here,
 * before anything renders it, and `fallback` (the fields shown before) takes its place.
 * A blank CAPTCHA secret keeps the stored one (secrets are never sent to the page).
 */
export function definitionFromPost(
  body: URLSearchParams,
  existing: Form | null,
  fallback: FieldInput[],
): PostedDefinition {
  const posted = postedFields(body.get("fields_json"));
  const fields = posted.fields;
  const steps = postedJson(body.get("steps_json"), "steps", []);
  const translations = postedJson(body.get("translations_json"), "translations", {});
  const problems = [...posted.problems, ...steps.problems, ...translations.problems];
  const language = (body.get("default_language") ?? "").trim();
  const provider = (body.get("captcha_provider") || "none").trim();
  const siteKey = (body.get("captcha_site_key") ?? "").trim();
  // Settings the editor does not show (reCAPTCHA score, hostnames) survive an edit.
  const kept = existing?.captcha?.provider === provider ? existing.captcha : null;
  const secret = (body.get("captcha_secret") ?? "").trim() || kept?.secret;
  const success = (body.get("redirect_success") ?? "").trim();
  const error = (body.get("redirect_error") ?? "").trim();
  const def: FormDefinition = {
    name: body.get("name") ?? "",
    fields: fields ?? fallback,
    captcha: provider === "none"
      ? null
      : { ...kept, provider: provider as "turnstile", siteKey: siteKey || undefined, secret },
    honeypot: (body.get("honeypot") ?? "").trim() || null,
    allowed_origins: lines(body.get("allowed_origins") ?? ""),
    accepting: body.get("accepting") === "on",
    redirect: success || error
      ? { success: success || undefined, error: error || undefined }
      : undefined,
    intro: (body.get("intro") ?? "").trim() || undefined,
    thank_you: (body.get("thank_you") ?? "").trim() || undefined,
    notifications: notificationsFromPost(body, existing?.notifications),
    // A post that omits them (made by hand, not by the editor) keeps the form's own.
    steps: (body.has("steps_json") ? steps.value : existing?.steps) as FormDefinition["steps"],
    default_language: body.has("default_language")
      ? language || undefined
      : existing?.default_language,
    translations:
      (body.has("translations_json")
        ? translations.value
        : existing?.translations) as FormDefinition["translations"],
  };
  return { def, problems };
}

/** What the editor calls each part of a definition (paths as the schema names them). */
const PART_NAMES: Record<string, string> = {
  name: "Name (data key)",
  type: "Type",
  label: "Label",
  placeholder: "Placeholder",
  help: "Help text",
  pattern: "Pattern",
  minLength: "Min length",
  maxLength: "Max length",
  min: "Min",
  max: "Max",
  options: "Options",
  allowedTypes: "Allowed MIME types",
  maxSizeMB: "Max size (MB)",
  id: "Field id",
  when: "Condition",
  compute: "Calculation",
  default: "Default value",
};

const FORM_PARTS: Record<string, string> = {
  name: "Form name",
  honeypot: "Honeypot field name",
  allowed_origins: "Allowed origins",
  "redirect.success": "Success redirect",
  "redirect.error": "Error redirect",
  "captcha.secret": "CAPTCHA secret key",
  "captcha.siteKey": "CAPTCHA site key",
  "captcha.provider": "CAPTCHA provider",
  fields: "Fields",
  steps: "Steps",
  default_language: "Language of the texts",
  translations: "Translations",
  notifications: "Notifications",
  "notifications.emails": "Notification emails",
  "notifications.subject": "Email subject",
  "notifications.reply_to_field": "Reply-to field",
  "notifications.autoresponder.email_field": "Autoresponder email field",
  "notifications.autoresponder.subject": "Autoresponder subject",
  "notifications.autoresponder.text": "Autoresponder text",
};

/** A schema message in plain words ("must be a number" rather than zod's wording). */
function plainMessage(msg: string): string {
  const m = msg.replace(/^Invalid input: /, "");
  let r: RegExpMatchArray | null;
  if (/expected number, received/.test(m)) return "must be a number";
  if (/expected int/.test(m)) return "must be a whole number";
  if ((r = m.match(/^Too small: expected (?:string|array) to have >=?(\d+)/))) {
    return r[1] === "1" ? "must not be empty" : `needs at least ${r[1]}`;
  }
  if ((r = m.match(/^Too big: expected string to have <=?(\d+)/))) {
    return `must be at most ${r[1]} characters`;
  }
  if ((r = m.match(/^Too big: expected array to have <=?(\d+)/))) {
    return `may have at most ${r[1]} entries`;
  }
  if ((r = m.match(/^Too small: expected number to be (>=?)(\S+)/))) {
    return r[1] === ">" ? `must be more than ${r[2]}` : `must be at least ${r[2]}`;
  }
  if ((r = m.match(/^Too big: expected number to be <=?(\S+)/))) return `must be at most ${r[1]}`;
  if (/^Invalid option/.test(m) || /^expected one of/.test(m)) return "is not one of the choices";
  if (/^Invalid email/i.test(m)) return "is not an email address";
  if (/^Invalid (string|URL)/i.test(m)) return "is not in the expected format";
  if (/^Unrecognized key/.test(m)) return m.replace(/^Unrecognized keys?:?/, "unknown setting");
  if (m === "greater than maxLength") return "is greater than the max length";
  return m;
}

/**
 * The schema's problems (`fields.0.maxLength: Invalid input: ...`) in the editor's words:
 * `Field 1 "email", Max length: must be a number`.
 */
export function describeProblems(details: string[], fields: FieldInput[]): string[] {
  return details.map((d) => {
    const sep = d.indexOf(": ");
    const path = sep < 0 ? "" : d.slice(0, sep);
    const msg = plainMessage(sep < 0 ? d : d.slice(sep + 2));
    const f = path.match(/^fields\.(\d+)(?:\.(\w+))?/);
    if (f) {
      const i = Number(f[1]);
      const name = fields[i]?.label || fields[i]?.name;
      const who = `Field ${i + 1}${name ? ` "${name}"` : ""}`;
      return f[2] ? `${who}, ${PART_NAMES[f[2]] ?? f[2]}: ${msg}` : `${who}: ${msg}`;
    }
    const st = path.match(/^steps\.(\d+)(?:\.(\w+))?/);
    if (st) {
      const part = { title: "title", fields: "fields", when: "condition" }[st[2] ?? ""];
      return `Step ${Number(st[1]) + 1}${part ? `, ${part}` : ""}: ${msg}`;
    }
    const tr = path.match(/^translations\.([^.]+)/);
    if (tr) return `Translations (${tr[1]}): ${msg}`;
    const e = path.match(/^notifications\.emails\.(\d+)$/);
    if (e) return `Notification emails, address ${Number(e[1]) + 1}: ${msg}`;
    const part = FORM_PARTS[path] ?? FORM_PARTS[path.replace(/\.\d+$/, "")];
    return part ? `${part}: ${msg}` : msg;
  });
}

/** The problems of a posted definition the schema does not refuse: a form needs a field. */
export function editorProblems(def: FormDefinition): string[] {
  return (def.fields ?? []).length === 0
    ? ["Fields: add at least one field; a form without fields cannot collect anything"]
    : [];
}
