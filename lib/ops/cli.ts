/**
 * The CLI's `backup --out F` and `restore --in F`. They run before the CLI builds its
 * dependencies: building them writes the generated secret into an empty KV, and restore
 * needs that KV untouched.
 * @module
 */
import { parseArgs } from "node:util";
import type { Config } from "@/lib/config.ts";
import { AppError } from "@/lib/errors.ts";
import { createJobs } from "@/lib/runtime.ts";
import { createStorage } from "@/lib/uploads/storage/mod.ts";
import { createBackup } from "./backup.ts";
import { restoreBackup } from "./restore.ts";

/** Runs `backup` or `restore` and returns what to print; null for any other command. */
export async function runOpsCli(
  kv: Deno.Kv,
  config: Config,
  args: string[],
): Promise<Record<string, unknown> | null> {
  if (args[0] !== "backup" && args[0] !== "restore") return null;
  const { values, positionals } = parseArgs({
    args: args.slice(1),
    allowPositionals: true,
    strict: true,
    options: { out: { type: "string" }, in: { type: "string" } },
  });
  const name = args[0] === "backup" ? "out" : "in";
  const path = values[name];
  if (!path || positionals.length) {
    throw new AppError(400, "bad_request", `Usage: deno task cli ${args[0]} --${name} FILE`);
  }
  if (args[0] === "backup") return { backup: await createBackup(kv, config, path) };
  // Storage writes need no signing key; the jobs runner only enqueues here.
  const storage = createStorage(config, new Uint8Array(32));
  try {
    return {
      restored: await restoreBackup(kv, config, { jobs: createJobs(kv, config), storage }, path),
    };
  } finally {
    storage.close?.();
  }
}
