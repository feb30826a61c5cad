#!/usr/bin/env node
/**
 * The `formwell` command of the npm package (`npx formwell deploy ...`): the same `deploy`
 * as `deno task cli deploy` (src/deploy/cli.ts), on Node 18+ (or Deno, Bun).
 * @module
 */
import { readFile } from "node:fs/promises";
import process from "node:process";
import { DEPLOY_USAGE, runDeploy } from "./src/deploy/cli.ts";

const [command, ...args] = process.argv.slice(2);
if (command === "deploy") {
  process.exitCode = await runDeploy(args, {
    readText: (path) => readFile(path, "utf8"),
    out: (line) => console.log(line),
    err: (line) => console.error(line),
    env: (name) => process.env[name],
  });
} else {
  console.error(
    JSON.stringify({
      error: `Unknown command ${command ?? "(none)"}.\n${DEPLOY_USAGE}`,
    }),
  );
  process.exitCode = 2;
}
