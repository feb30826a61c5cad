/**
 * What a bench run needs in its KV: a Business workspace (no monthly quota), a key with
 * the `submit` and `read` scopes, and the forms each row targets.
 * @module
 */
import { createApiKey } from "@/lib/keys/api_keys.ts";
import type { Deps } from "@/lib/deps.ts";
import { createForm } from "@/lib/forms/forms.ts";
import type { Form, FormDefinition, Workspace } from "@/lib/schemas.ts";
import { createWorkspace } from "@/lib/workspaces/workspaces.ts";

/** The origin the public-submit row sends and the public form allows. */
export const BENCH_ORIGIN = "https://bench.formwell.test";

/** A six-field form: the JSON submit row's target. */
export const SIX_FIELDS: NonNullable<FormDefinition["fields"]> = [
  { name: "name", label: "Name", type: "text", required: true, maxLength: 100 },
  { name: "email", label: "Email", type: "email", required: true },
  { name: "company", label: "Company", type: "text", maxLength: 200 },
  { name: "topic", label: "Topic", type: "select", options: ["sales", "support", "other"] },
  { name: "message", label: "Message", type: "textarea", required: true, maxLength: 5000 },
  { name: "newsletter", label: "Newsletter", type: "boolean" },
] as NonNullable<FormDefinition["fields"]>;

/** The data of one six-field submission; `{{key}}` is replaced per request by wrk. */
export function sixFieldData(tag = "{{key}}"): Record<string, unknown> {
  return {
    name: `Ada Lovelace ${tag}`,
    email: "ada@example.com",
    company: "Analytical Engines Ltd",
    topic: "sales",
    message: "We would like a quote for 250 seats, billed yearly. ".repeat(4).trim(),
    newsletter: true,
  };
}

/**
 * A ten-field order form with five `when` conditions and one `compute` (the total): the
 * target of the row `JSON submit, form with logic`.
 */
export const LOGIC_FIELDS: NonNullable<FormDefinition["fields"]> = [
  { name: "name", label: "Name", type: "text", required: true, maxLength: 100 },
  { name: "email", label: "Email", type: "email", required: true },
  { name: "kind", label: "You are", type: "radio", options: ["person", "company"], required: true },
  {
    name: "company",
    label: "Company",
    type: "text",
    required: true,
    maxLength: 200,
    when: { "==": [{ var: "kind" }, "company"] },
  },
  {
    name: "vat",
    label: "VAT number",
    type: "text",
    pattern: "[A-Z]{2}[0-9]{6,12}",
    when: { "==": [{ var: "kind" }, "company"] },
  },
  { name: "topic", label: "Topic", type: "select", options: ["sales", "support", "other"] },
  {
    name: "seats",
    label: "Seats",
    type: "integer",
    min: 1,
    required: true,
    when: { "==": [{ var: "topic" }, "sales"] },
  },
  {
    name: "total",
    label: "Yearly total",
    type: "number",
    when: { "==": [{ var: "topic" }, "sales"] },
    compute: { "*": [{ var: "seats" }, 12] },
  },
  { name: "message", label: "Message", type: "textarea", required: true, maxLength: 5000 },
  {
    name: "newsletter",
    label: "Newsletter",
    type: "boolean",
    when: { "==": [{ var: "kind" }, "person"] },
  },
] as NonNullable<FormDefinition["fields"]>;

/**
 * The data of one submission to the logic form: a company (its fields shown, the
 * newsletter box hidden and dropped), sales (seats shown, the total computed).
 */
export function logicFieldData(tag = "{{key}}"): Record<string, unknown> {
  return {
    name: `Ada Lovelace ${tag}`,
    email: "ada@example.com",
    kind: "company",
    company: "Analytical Engines Ltd",
    vat: "GB12345678",
    topic: "sales",
    seats: 250,
    message: "We would like a quote for 250 seats, billed yearly. ".repeat(4).trim(),
    newsletter: true,
  };
}

/** Everything the rows target. */
export interface BenchFixtures {
  workspace: Workspace;
  key: string;
  jsonForm: Form;
  publicForm: Form;
  uploadForm: Form;
  listForm: Form;
  /** Has a webhook (to bench/receiver.ts): the webhook row's form. */
  webhookForm: Form;
}

/** Creates the workspace, key and forms. */
export async function createFixtures(deps: Deps): Promise<BenchFixtures> {
  const workspace = await createWorkspace(deps, { name: "bench", plan: "business" });
  const key = (await createApiKey(deps, {
    workspaceId: workspace.id,
    name: "bench",
    scopes: ["submit", "read"],
  })).key;
  const form = (def: Partial<FormDefinition>) =>
    createForm(deps, workspace.id, { name: "Bench", fields: SIX_FIELDS, ...def });
  return {
    workspace,
    key,
    jsonForm: await form({ name: "JSON submit" }),
    publicForm: await form({
      name: "Public submit",
      honeypot: "_gotcha",
      allowed_origins: [BENCH_ORIGIN],
    }),
    uploadForm: await form({
      name: "Uploads",
      fields: [
        ...SIX_FIELDS,
        { name: "cv", type: "file", allowedTypes: ["application/pdf"], maxSizeMB: 5 },
      ] as FormDefinition["fields"],
    }),
    listForm: await form({ name: "Submissions list" }),
    webhookForm: await form({ name: "Webhook" }),
  };
}
