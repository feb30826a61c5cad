/**
 * First start on an empty database: a demo workspace (Starter), a demo form and an admin.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { createForm } from "@/lib/forms/forms.ts";
import { randomBase62 } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import type { Form, Workspace } from "@/lib/schemas.ts";
import { createUser } from "./users.ts";
import { createWorkspace } from "@/lib/workspaces/workspaces.ts";

/** What the seed created, for the start-up banner. */
export interface SeedResult {
  workspace: Workspace;
  form: Form;
  email: string;
  /** Only when generated here; a configured ADMIN_PASSWORD is never printed. */
  password: string | null;
}

/** The demo form definition. */
export const DEMO_FORM = {
  name: "Contact us",
  fields: [
    { name: "name", label: "Name", type: "text", required: true, maxLength: 100 },
    { name: "email", label: "Email", type: "email", required: true },
    { name: "topic", label: "Topic", type: "select", options: ["sales", "support", "other"] },
    { name: "message", label: "Message", type: "textarea", required: true, maxLength: 5000 },
  ],
  honeypot: "_gotcha",
  allowed_origins: [],
  accepting: true,
};

/** Seeds once per database (a marker, claimed atomically, keeps two processes from both seeding). */
export async function seedIfEmpty(deps: Deps): Promise<SeedResult | null> {
  const claim = await withKvRetry(() =>
    deps.kv.atomic().check({ key: keys.seeded(), versionstamp: null }).set(keys.seeded(), {
      at: deps.now(),
    }).commit()
  );
  if (!claim.ok) return null;
  const workspace = await createWorkspace(deps, { name: "Demo workspace", plan: "starter" });
  const form = await createForm(deps, workspace.id, DEMO_FORM);
  const email = deps.config.admin.email ?? "admin@formwell.local";
  const password = deps.config.admin.password ?? null;
  const generated = password ?? randomBase62(16);
  await createUser(deps, {
    email,
    password: generated,
    workspaceIds: [workspace.id],
    role: "owner",
    owner: true,
  });
  return { workspace, form, email, password: password ? null : generated };
}

/** The start-up banner: admin login and a curl line that submits to the demo form. */
export function seedBanner(baseUrl: string, seed: SeedResult): string {
  const body = JSON.stringify({
    data: { name: "Ada", email: "ada@example.com", message: "Hello from curl" },
  });
  return [
    "Formwell: created a demo workspace, form and admin user.",
    `  Admin:     ${baseUrl}/admin  (email ${seed.email}, password ${
      seed.password ?? "from ADMIN_PASSWORD"
    })`,
    `  Demo form: ${baseUrl}/f/${seed.form.id}`,
    "  Submit to it:",
    `    curl -sS -X POST ${baseUrl}/api/v1/submit/p/${seed.form.id} -H 'Content-Type: application/json' -d '${body}'`,
  ].join("\n");
}
