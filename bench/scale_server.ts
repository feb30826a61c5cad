/**
 * Formwell over the scale rows' KV file, in its own process (so its peak RSS is the
 * server's alone), started as the other rows' server is (bench/server.ts `startFormwell`:
 * production mode, queue listener on). Prints `{"url": ...}` on stdout once it listens and
 * runs until SIGTERM.
 *
 * `deno run -A bench/scale_server.ts <dir> <kv file>`
 * @module
 */
import { startFormwell } from "./server.ts";

if (import.meta.main) {
  const [dir, path] = Deno.args;
  const server = await startFormwell(dir, path);
  console.log(JSON.stringify({ url: server.url }));
  Deno.addSignalListener("SIGTERM", async () => {
    await server.close();
    Deno.exit(0);
  });
}
