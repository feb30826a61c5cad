/**
 * `deploy`: reads the workspace's forms through the Server Data API, plans (plan.ts) and,
 * unless asked only to plan, applies: creates, then changes. A change that drops fields of a
 * form holding submissions is refused unless removals are allowed, before anything is sent.
 * @module
 */
import { FormwellError } from "../errors.ts";
import type { Form, FormCreate, FormPatch, Pagination } from "../types.ts";
import { type DeployPlan, type FormwellFile, planDeploy, type Removal } from "./plan.ts";

/** What deploy needs of the server client (`new Formwell({ apiKey, baseUrl })`). */
export interface DeployClient {
  forms: {
    list(query?: { limit?: number }): AsyncIterable<Form>;
    create(definition: FormCreate): Promise<Form>;
    update(id: string, patch: FormPatch): Promise<Form>;
  };
  submissions: {
    page(
      formId: string,
      query?: { limit?: number },
    ): Promise<{ pagination: Pagination }>;
  };
}

/** How to deploy. */
export interface DeployOptions {
  /** Plan only; change nothing. */
  dryRun?: boolean;
  /** Apply even when fields holding stored submissions are dropped. */
  allowRemovals?: boolean;
}

/** What a deploy did or would do. */
export interface DeployResult {
  plan: DeployPlan;
  /** Field removals that lose stored data (refused unless allowed). */
  removals: Removal[];
  /** Whether the plan was applied. */
  applied: boolean;
}

/** A deploy refused before it changed anything: fields with stored data would go. */
export class RemovalRefused extends Error {
  constructor(readonly removals: Removal[]) {
    super(
      "The deploy drops fields of forms that hold submissions: " +
        removals.map((r) => `${r.key} (${r.fields.join(", ")})`).join("; ") +
        ". Their stored values would no longer be shown or exported. Run again with " +
        "--allow-removals to drop them.",
    );
    this.name = "RemovalRefused";
  }
}

/** A create or change the server refused; `key` names the form. */
export class DeployStepFailed extends Error {
  constructor(readonly key: string, override readonly cause: FormwellError) {
    super(`Form "${key}": ${cause.message}`);
    this.name = "DeployStepFailed";
  }
}

async function step(key: string, send: () => Promise<unknown>): Promise<void> {
  try {
    await send();
  } catch (err) {
    throw err instanceof FormwellError ? new DeployStepFailed(key, err) : err;
  }
}

/** The server's forms that have a key, by key. */
async function formsByKey(client: DeployClient): Promise<Map<string, Form>> {
  const out = new Map<string, Form>();
  for await (const f of client.forms.list({ limit: 100 })) {
    if (f.key) out.set(f.key, f);
  }
  return out;
}

/** Plans and (unless `dryRun`) applies `file` to the key's workspace. */
export async function deploy(
  client: DeployClient,
  file: FormwellFile,
  opts: DeployOptions = {},
): Promise<DeployResult> {
  const server = await formsByKey(client);
  const detail = planDeploy(file, server);
  const plan = {
    create: detail.create,
    update: detail.update,
    unchanged: detail.unchanged,
  };
  const removals: Removal[] = [];
  for (const [key, fields] of Object.entries(detail.dropped)) {
    const id = server.get(key)!.public_id;
    const { pagination } = await client.submissions.page(id, { limit: 1 });
    if (pagination.total > 0) removals.push({ key, fields });
  }
  if (opts.dryRun) return { plan, removals, applied: false };
  if (removals.length && !opts.allowRemovals) {
    throw new RemovalRefused(removals);
  }
  const byKey = new Map(file.forms.map((f) => [f.key, f]));
  for (const key of detail.create) {
    await step(key, () => client.forms.create(byKey.get(key)!));
  }
  for (const key of detail.update) {
    await step(
      key,
      () => client.forms.update(`key:${key}`, detail.patches[key]),
    );
  }
  return { plan, removals, applied: true };
}
