/**
 * `deno task cli ...`: administers the same KV as the server. Prints one JSON object on
 * stdout; on failure `{"error": "..."}` on stderr and a non-zero exit.
 * @module
 */
import { parseArgs } from "node:util";
import { createApiKey, listApiKeys, revokeApiKey } from "@/lib/keys/api_keys.ts";
import { ConfigError, loadConfig } from "@/lib/config.ts";
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { createForm, formView, getForm, setAccepting, updateForm } from "@/lib/forms/forms.ts";
import { formTypesModule } from "@/lib/forms/typescript.ts";
import { PLAN_NAMES, type PlanName } from "@/lib/workspaces/plans.ts";
import { buildDeps, openKv } from "@/lib/runtime.ts";
import { type Scope, SCOPES } from "@/lib/schemas.ts";
import { createUser, userView } from "@/lib/admin/users.ts";
import { createResetLink } from "@/lib/admin/reset.ts";
import { auditCli } from "@/lib/privacy/audit_cli.ts";
import { createWorkspace, updateWorkspace } from "@/lib/workspaces/workspaces.ts";
import { createWebhook, deleteWebhook } from "@/lib/notify/webhook_edits.ts";
import { listWebhooks, webhookView } from "@/lib/notify/webhooks.ts";
import { importCli } from "@/lib/imports/cli.ts";
import { runOpsCli } from "@/lib/ops/cli.ts";
import { type RebuildReport, rebuildSearchIndex } from "@/lib/search/rebuild.ts";
import type { Mode } from "@/lib/kv/keys.ts";
import { runDeploy } from "@/sdk/src/deploy/cli.ts";

/** A usage error: printed as `{"error"}` with exit code 2. */
class UsageError extends Error {}

/** Output printed as it is rather than as JSON (`types` prints a TypeScript module). */
export class RawText {
  constructor(readonly text: string) {}
}

const USAGE = `Usage: deno task cli <command>
  workspace create --name N --plan free|starter|pro|business
  workspace set-plan --workspace W --plan P
  workspace suspend|unsuspend --workspace W
  form create --workspace W --file F
  form update --form PUBLIC_ID --file F
  form close|open --form PUBLIC_ID
  types --form PUBLIC_ID   (prints the form's data as a TypeScript module)
  key create --workspace W --name N [--type live|test] [--scopes submit,read,admin]
  key list --workspace W
  key revoke --key KEY_ID
  user create --email E [--workspace W]   (the password on standard input, or typed at a prompt)
  user reset-password --email E           (prints a single-use link to choose a new password)
  webhook create --workspace W --url URL [--events E1,E2] [--forms F1,F2] [--mode live|test]
                 [--format standard|slack|discord|teams]
  webhook list --workspace W
  webhook delete --webhook ID
  import --form PUBLIC_ID --file F [--format csv|formspree|basin|netlify]
  search rebuild --form PUBLIC_ID [--mode live|test]
                      (rebuilds the form's search index from its submissions, while it runs)
  backup --out F      (a consistent backup of the KV and stored files, while the service runs)
  restore --in F      (loads a backup into an empty KV)
  deploy --url BASE --api-key KEY [--file formwell.json] [--dry-run] [--check] [--allow-removals]
                      (over HTTP: applies formwell.json's forms; see docs/forms-as-code.md)`;

function need(values: Record<string, string | undefined>, name: string): string {
  const v = values[name];
  if (!v) throw new UsageError(`Missing --${name}.\n${USAGE}`);
  return v;
}

function plan(value: string): PlanName {
  if (!(PLAN_NAMES as readonly string[]).includes(value)) {
    throw new UsageError(`--plan must be one of ${PLAN_NAMES.join(", ")}.`);
  }
  return value as PlanName;
}

async function readDefinition(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch {
    throw new UsageError(`Cannot read --file ${path}.`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`--file ${path} is not valid JSON.`);
  }
}

/** Where a command reads a secret it must not take from the command line. */
export interface CliInput {
  /** The password: standard input's first line, or typed at a prompt without echo. */
  readPassword: () => Promise<string>;
}

const PASSWORD_ON_COMMAND_LINE =
  "--password is refused: a command-line password is visible to other users (ps) and kept " +
  "in shell history. Pipe it on standard input instead, e.g. " +
  "printf '%s\\n' \"$PASSWORD\" | deno task cli user create --email E, or type it at the prompt.";

/** Runs one command; returns what to print. */
export async function runCli(
  deps: Deps,
  args: string[],
  input: CliInput = { readPassword: readPasswordFromStdin },
): Promise<unknown> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      name: { type: "string" },
      plan: { type: "string" },
      workspace: { type: "string" },
      file: { type: "string" },
      form: { type: "string" },
      type: { type: "string" },
      scopes: { type: "string" },
      key: { type: "string" },
      email: { type: "string" },
      password: { type: "string" },
      url: { type: "string" },
      events: { type: "string" },
      forms: { type: "string" },
      webhook: { type: "string" },
      mode: { type: "string" },
      format: { type: "string" },
    },
  });
  const v = values as Record<string, string | undefined>;
  const [group, action] = positionals;
  if (group === "types" && action === undefined) {
    const form = await getForm(deps, need(v, "form"));
    if (!form) throw errors.formNotFound();
    return new RawText(await formTypesModule(form));
  }
  if (group === "import" && action === undefined) return await importCli(deps, v);
  switch (`${group} ${action}`) {
    case "workspace create": {
      const ws = await createWorkspace(deps, {
        name: need(v, "name"),
        plan: plan(need(v, "plan")),
      });
      return { id: ws.id, name: ws.name, plan: ws.plan };
    }
    case "workspace set-plan":
      return await updateWorkspace(deps, need(v, "workspace"), { plan: plan(need(v, "plan")) });
    case "workspace suspend":
    case "workspace unsuspend":
      return await updateWorkspace(deps, need(v, "workspace"), { suspended: action === "suspend" });
    case "form create":
      return formView(
        await createForm(deps, need(v, "workspace"), await readDefinition(need(v, "file"))),
      );
    case "form update":
      return formView(
        await updateForm(deps, need(v, "form"), await readDefinition(need(v, "file")), {
          actor: "cli",
        }),
      );
    case "form close":
    case "form open":
      return formView(await setAccepting(deps, need(v, "form"), action === "open"));
    case "key create": {
      const type = v.type ?? "live";
      if (type !== "live" && type !== "test") throw new UsageError("--type must be live or test.");
      const scopes = v.scopes?.split(",").map((s) => s.trim()).filter(Boolean);
      for (const s of scopes ?? []) {
        if (!(SCOPES as readonly string[]).includes(s)) {
          throw new UsageError(`Unknown scope ${s}; use ${SCOPES.join(",")}.`);
        }
      }
      const key = await createApiKey(deps, {
        workspaceId: need(v, "workspace"),
        name: need(v, "name"),
        type,
        scopes: scopes as Scope[] | undefined,
      });
      return {
        id: key.id,
        name: key.name,
        type: key.type,
        scopes: key.scopes,
        prefix: key.prefix,
        key: key.key,
      };
    }
    case "key list":
      return { keys: await listApiKeys(deps, need(v, "workspace")) };
    case "key revoke":
      return await revokeApiKey(deps, need(v, "key"));
    case "user create": {
      if (v.password !== undefined) throw new UsageError(PASSWORD_ON_COMMAND_LINE);
      const ws = v.workspace ? [v.workspace] : [];
      const email = need(v, "email");
      const password = await input.readPassword();
      if (!password) throw new UsageError("No password on standard input.");
      // The one the CLI creates runs the workspace it names.
      return userView(await createUser(deps, { email, password, workspaceIds: ws, role: "owner" }));
    }
    case "user reset-password": {
      const link = await createResetLink(deps, need(v, "email"));
      return { url: link.url, expires_at: new Date(link.expires_at).toISOString() };
    }
    case "webhook create": {
      const list = (x: string | undefined) => x?.split(",").map((s) => s.trim()).filter(Boolean);
      const mode = v.mode ?? "live";
      if (mode !== "live" && mode !== "test") throw new UsageError("--mode must be live or test.");
      return {
        webhook: await createWebhook(deps, need(v, "workspace"), {
          url: need(v, "url"),
          ...(v.events ? { events: list(v.events) } : {}),
          ...(v.forms ? { forms: list(v.forms) } : {}),
          ...(v.format ? { format: v.format } : {}),
        }, { actor: "cli", mode }),
      };
    }
    case "search rebuild": {
      const form = await getForm(deps, need(v, "form"));
      if (!form) throw errors.formNotFound();
      const modes = v.mode ? [v.mode] : ["live", "test"];
      if (modes.some((m) => m !== "live" && m !== "test")) {
        throw new UsageError("--mode must be live or test.");
      }
      const out: Record<string, RebuildReport> = {};
      for (const m of modes as Mode[]) out[m] = await rebuildSearchIndex(deps, form.id, m);
      return { form: form.id, ...out };
    }
    case "webhook list":
      return { webhooks: (await listWebhooks(deps, need(v, "workspace"))).map(webhookView) };
    case "webhook delete":
      return await deleteWebhook(deps, null, need(v, "webhook"), { actor: "cli" });
    default:
      throw new UsageError(USAGE);
  }
}

/**
 * The password from standard input: at a terminal it is typed after a prompt with echo off;
 * piped, the first line is taken (a trailing CR/LF dropped).
 */
export async function readPasswordFromStdin(): Promise<string> {
  const enc = new TextEncoder();
  if (Deno.stdin.isTerminal()) {
    await Deno.stderr.write(enc.encode("Password: "));
    Deno.stdin.setRaw(true);
    const typed: number[] = [];
    try {
      const buf = new Uint8Array(1);
      for (;;) {
        const n = await Deno.stdin.read(buf);
        if (n === null || buf[0] === 0x0d || buf[0] === 0x0a) break;
        if (buf[0] === 0x03) throw new UsageError("Cancelled.");
        if (buf[0] === 0x7f || buf[0] === 0x08) typed.pop();
        else typed.push(buf[0]);
      }
    } finally {
      Deno.stdin.setRaw(false);
      await Deno.stderr.write(enc.encode("\n"));
    }
    return new TextDecoder().decode(new Uint8Array(typed));
  }
  const text = new TextDecoder().decode(await new Response(Deno.stdin.readable).arrayBuffer());
  return text.split(/\r?\n/)[0];
}

/** `deploy` works over HTTP (sdk/src/deploy): it never opens the KV. */
async function deployOverHttp(args: string[]): Promise<number> {
  return await runDeploy(args, {
    readText: (path) => Deno.readTextFile(path),
    out: (line) => console.log(line),
    err: (line) => console.error(line),
    env: (name) => Deno.env.get(name),
  });
}

if (import.meta.main && Deno.args[0] === "deploy") {
  Deno.exit(await deployOverHttp(Deno.args.slice(1)));
} else if (import.meta.main) {
  let kv: Deno.Kv | undefined;
  try {
    const config = loadConfig(Deno.env.toObject());
    kv = await openKv(config);
    const ops = await runOpsCli(kv, config, Deno.args); // before deps: restore needs an empty KV
    const deps = ops ? null : await buildDeps(kv, config);
    const out = ops ?? await runCli(deps!, Deno.args);
    if (deps) await auditCli(deps, Deno.args, out);
    console.log(out instanceof RawText ? out.text : JSON.stringify(out));
    kv.close();
  } catch (err) {
    kv?.close();
    const known = err instanceof AppError || err instanceof UsageError ||
      err instanceof ConfigError ||
      (err instanceof Error && err.name === "TypeError" && "code" in err &&
        String(err.code).startsWith("ERR_PARSE_ARGS"));
    console.error(
      JSON.stringify({
        error: known ? (err as Error).message : `Unexpected error: ${(err as Error).message}`,
      }),
    );
    Deno.exit(err instanceof UsageError ? 2 : 1);
  }
}
