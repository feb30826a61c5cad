/**
 * A fake Akismet for tests: a local HTTP server speaking its documented protocol
 * (form-encoded POSTs to /1.1/verify-key, comment-check, submit-spam, submit-ham;
 * `true`/`false` bodies, `X-akismet-pro-tip: discard`, `invalid` for a bad key).
 * @module
 */

/** The key the fake accepts. */
export const GOOD_KEY = "k3y-good";

/** A fake Akismet: answers by the content's marker words, records every call. */
export function fakeAkismet() {
  const calls: Array<{ path: string; params: URLSearchParams }> = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    const params = new URLSearchParams(await req.text());
    calls.push({ path, params });
    const text = (body: string, headers: Record<string, string> = {}) =>
      new Response(body, { headers: { "content-type": "text/plain", ...headers } });
    if (path === "/1.1/verify-key") {
      return text(params.get("key") === GOOD_KEY ? "valid" : "invalid");
    }
    if (params.get("api_key") !== GOOD_KEY) {
      return text("invalid", { "x-akismet-debug-help": "We were unable to parse your blog URI" });
    }
    const content = params.get("comment_content") ?? "";
    if (path === "/1.1/comment-check") {
      if (content.includes("blatant")) return text("true", { "x-akismet-pro-tip": "discard" });
      return text(content.includes("spammy") ? "true" : "false");
    }
    if (path === "/1.1/submit-spam" || path === "/1.1/submit-ham") {
      return text("Thanks for making the web a better place.");
    }
    return new Response("not found", { status: 404 });
  });
  const url = `http://127.0.0.1:${server.addr.port}`;
  return { calls, server, url };
}

/** The environment that turns the second opinion on against `fake`. */
export function akismetEnv(fake: { url: string }): Record<string, string> {
  return { AKISMET_KEY: GOOD_KEY, AKISMET_URL: fake.url };
}
