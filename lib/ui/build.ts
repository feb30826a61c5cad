/**
 * `deno task build`: bundles the islands ahead of time into static/build/ (for Deno Deploy).
 * @module
 */
import { writePrebuilt } from "./islands.ts";

if (import.meta.main) {
  const files = await writePrebuilt();
  console.log(JSON.stringify({ built: files }));
}
