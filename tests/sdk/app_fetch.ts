/**
 * A fetch that hands every request to the real app of a test environment (no network):
 * the client under test speaks to the same code the service runs. Every API answer is
 * checked against the OpenAPI definitions (tests/api_contract.ts): the client calls only
 * documented routes, and reads answers of the documented shapes.
 * @module
 */
import { assertDocumented } from "@/tests/api_contract.ts";
import type { TestEnv } from "@/tests/helpers.ts";

/** Routes any URL's path and query to `env.app`, as from one client address. */
export function appFetch(
  env: TestEnv,
  intercept?: (
    req: Request,
    answer: () => Promise<Response>,
  ) => Promise<Response>,
): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input));
    const req = new Request(
      `http://localhost${url.pathname}${url.search}`,
      init,
    );
    req.headers.set("x-forwarded-for", "198.51.100.20");
    // A real fetch sends a Blob's length; a Request handed over in memory has none.
    if (init?.body instanceof Blob) {
      req.headers.set("content-length", String(init.body.size));
    }
    const answer = async () => {
      const res = await env.app.fetch(req.clone());
      if (url.pathname.startsWith("/api/v1/")) {
        await assertDocumented(env.deps, req.method, url.pathname, res);
      }
      return res;
    };
    return intercept ? await intercept(req, answer) : await answer();
  }) as typeof fetch;
}
