/**
 * `deno task build`: bundles the islands ahead of time into static/build/ and the client
 * library into sdk/dist/ (for Deno Deploy). `deno task build-sdk` (argument `sdk`) builds
 * only the library (its bundles and its npm package, `formwell-client.tgz`) and prints each bundle's minified and gzip size.
 * @module
 */
import { writePrebuilt } from "./islands.ts";
import { writeSdk } from "./sdk_bundle.ts";
import { writeClientPackage } from "./sdk_package.ts";

/** The browser core's size budget, minified and gzip-compressed (the form rules included). */
export const CORE_GZIP_BUDGET = 14 * 1024;

if (import.meta.main) {
  const sdkOnly = Deno.args[0] === "sdk";
  const islands = sdkOnly ? undefined : await writePrebuilt();
  const sdk = await writeSdk();
  const npmPackage = await writeClientPackage();
  const core = sdk["formwell.js"];
  console.log(JSON.stringify({
    ...(islands ? { built: islands } : {}),
    sdk,
    npm_package: npmPackage,
    core_gzip_bytes: core.gzip,
    core_budget_bytes: CORE_GZIP_BUDGET,
  }));
  if (core.gzip > CORE_GZIP_BUDGET) {
    console.error(
      `formwell.js is ${core.gzip} bytes gzip, over its ${CORE_GZIP_BUDGET} budget.`,
    );
    Deno.exit(1);
  }
}
