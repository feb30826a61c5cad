/**
 * The `deploy` command, shared by `npx formwell deploy` (the npm package's bin) and
 * `deno task cli deploy`: arguments, the file, the plan on stdout as one JSON object,
 * errors as `{"error"}` on stderr, and the exit code (0 done, 1 drift under `--check` or a
 * refusal, 2 a usage error). Works over HTTP only: it needs a URL and an API key.
 * @module
 */
import { Formwell } from "../../server.ts";
import { FormwellError } from "../errors.ts";
import { fileProblems, type FormwellFile } from "./plan.ts";
import { deploy, DeployStepFailed, RemovalRefused } from "./run.ts";

/** What the command takes from its environment. */
export interface DeployIo {
  readText(path: string): Promise<string>;
  out(line: string): void;
  err(line: string): void;
  env(name: string): string | undefined;
  /** The fetch the client uses (tests may pass one). */
  fetch?: typeof fetch;
}

/** How to call it. */
export const DEPLOY_USAGE =
  `Usage: formwell deploy --url BASE_URL --api-key KEY [--file formwell.json]
                       [--dry-run] [--check] [--allow-removals]
  --url, --api-key   the Formwell server and an admin live key (or FORMWELL_URL, FORMWELL_API_KEY)
  --file             the forms file (default formwell.json)
  --dry-run          print the plan, change nothing
  --check            print the plan, change nothing, exit 1 unless every form is unchanged
  --allow-removals   apply even when fields of forms that hold submissions are dropped`;

const FLAGS = ["dry-run", "check", "allow-removals"] as const;
const VALUES = ["url", "api-key", "file"] as const;

class UsageError extends Error {}

function parse(args: string[]): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  for (let i = 0; i < args.length; i++) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(args[i]);
    if (!m) throw new UsageError(`Unexpected argument ${args[i]}.`);
    const [, name, inline] = m;
    if ((FLAGS as readonly string[]).includes(name) && inline === undefined) {
      out[name] = true;
    } else if ((VALUES as readonly string[]).includes(name)) {
      const value = inline ?? args[++i];
      if (value === undefined) throw new UsageError(`--${name} needs a value.`);
      out[name] = value;
    } else throw new UsageError(`Unknown option --${name}.`);
  }
  return out;
}

async function readFile(io: DeployIo, path: string): Promise<FormwellFile> {
  let text: string;
  try {
    text = await io.readText(path);
  } catch {
    throw new UsageError(`Cannot read ${path}.`);
  }
  let file: unknown;
  try {
    file = JSON.parse(text);
  } catch {
    throw new UsageError(`${path} is not valid JSON.`);
  }
  const problems = fileProblems(file);
  if (problems.length) throw new UsageError(`${path}: ${problems.join(" ")}`);
  return file as FormwellFile;
}

/** Runs `deploy` with `args` (after the word `deploy`); resolves the exit code. */
export async function runDeploy(args: string[], io: DeployIo): Promise<number> {
  try {
    const a = parse(args);
    const baseUrl = (a.url as string | undefined) ?? io.env("FORMWELL_URL");
    const apiKey = (a["api-key"] as string | undefined) ??
      io.env("FORMWELL_API_KEY");
    if (!baseUrl || !apiKey) {
      throw new UsageError(`--url and --api-key are required.`);
    }
    const file = await readFile(
      io,
      (a.file as string | undefined) ?? "formwell.json",
    );
    const client = new Formwell({
      apiKey,
      baseUrl: baseUrl.replace(/\/+$/, ""),
      ...(io.fetch ? { runtime: { fetch: io.fetch } } : {}),
    });
    const dryRun = Boolean(a["dry-run"] || a.check);
    const result = await deploy(client, file, {
      dryRun,
      allowRemovals: Boolean(a["allow-removals"]),
    });
    io.out(JSON.stringify(result.plan));
    if (dryRun && result.removals.length && !a["allow-removals"]) {
      io.err(JSON.stringify({
        warning: "Applying this plan needs --allow-removals: it drops fields of forms " +
          "that hold submissions.",
        removals: result.removals,
      }));
    }
    const drift = result.plan.create.length + result.plan.update.length > 0;
    return a.check && drift ? 1 : 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(JSON.stringify({ error: `${err.message}\n${DEPLOY_USAGE}` }));
      return 2;
    }
    if (err instanceof RemovalRefused) {
      io.err(JSON.stringify({ error: err.message, removals: err.removals }));
      return 1;
    }
    const failed = err instanceof DeployStepFailed ? err.cause : err;
    if (failed instanceof FormwellError) {
      io.err(JSON.stringify({
        error: (err as Error).message,
        ...(err instanceof DeployStepFailed ? { key: err.key } : {}),
        status: failed.status,
        code: failed.code,
        ...(failed.errors?.length ? { errors: failed.errors } : {}),
      }));
      return 1;
    }
    io.err(
      JSON.stringify({ error: `Unexpected error: ${(err as Error).message}` }),
    );
    return 1;
  }
}
