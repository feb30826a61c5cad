/**
 * What the admin's form pages need beyond lib/forms.ts: the list with submission counts,
 * and turning the editor's posted fields into a form definition.
 * @module
 */
import type { Deps } from "./deps.ts";
import { errors } from "./errors.ts";
import { listFormIds } from "./forms.ts";
import { keys, type Mode, type StatusBucket } from "./kv_keys.ts";
import { getManyChunked, u64Value } from "./kv.ts";
import type { Form, FormDefinition } from "./schemas.ts";

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
 * The definition the editor posted. `fields_json` comes from the field-builder island;
 * a blank CAPTCHA secret keeps the stored one (secrets are never sent to the page).
 */
export function definitionFromPost(body: URLSearchParams, existing: Form | null): FormDefinition {
  let fields: unknown;
  try {
    fields = JSON.parse(body.get("fields_json") || "[]");
  } catch {
    throw errors.badRequest("The field list could not be read. Reload the editor and try again.");
  }
  const provider = (body.get("captcha_provider") || "none").trim();
  const siteKey = (body.get("captcha_site_key") ?? "").trim();
  // Settings the editor does not show (reCAPTCHA score, hostnames) survive an edit.
  const kept = existing?.captcha?.provider === provider ? existing.captcha : null;
  const secret = (body.get("captcha_secret") ?? "").trim() || kept?.secret;
  const success = (body.get("redirect_success") ?? "").trim();
  const error = (body.get("redirect_error") ?? "").trim();
  return {
    name: body.get("name") ?? "",
    fields: fields as FormDefinition["fields"],
    captcha: provider === "none"
      ? null
      : { ...kept, provider: provider as "turnstile", siteKey: siteKey || undefined, secret },
    honeypot: (body.get("honeypot") ?? "").trim() || null,
    allowed_origins: lines(body.get("allowed_origins") ?? ""),
    accepting: body.get("accepting") === "on",
    redirect: success || error
      ? { success: success || undefined, error: error || undefined }
      : undefined,
  };
}
