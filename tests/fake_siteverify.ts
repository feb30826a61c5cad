/**
 * A local fake of the three siteverify services, answering with each provider's real
 * response JSON. Tokens steer it: `ok` or `ok:<anything>` passes (hostname example.com,
 * or `ok@host:...` for another host), `v3:<score>:<action>:...` is a reCAPTCHA v3 pass,
 * `bad...` fails with `invalid-input-response`, `slow...` never answers until close. A
 * token seen twice fails with the provider's duplicate code.
 * Also solves ALTCHA challenges the way the browser widget does.
 * @module
 */
import assert from "node:assert/strict";
import { solveChallenge } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/sha";

/** The secret every fake provider expects. */
export const FAKE_SECRET = "0x4AAAAAAAfakeSecretForTests";

/** A running fake: its three siteverify URLs, the requests it saw, and close(). */
export interface FakeSiteverify {
  urls: { TURNSTILE_VERIFY_URL: string; HCAPTCHA_VERIFY_URL: string; RECAPTCHA_VERIFY_URL: string };
  requests: { provider: string; contentType: string; params: URLSearchParams }[];
  close: () => Promise<void>;
}

/** Starts the fake on a free local port. */
export function startFakeSiteverify(): FakeSiteverify {
  const seen = new Set<string>();
  const requests: FakeSiteverify["requests"] = [];
  let release = () => {};
  const released = new Promise<void>((r) => release = r);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const provider = new URL(req.url).pathname.slice(1);
    const params = new URLSearchParams(await req.text());
    requests.push({ provider, contentType: req.headers.get("content-type") ?? "", params });
    const token = params.get("response") ?? "";
    if (token.startsWith("slow")) {
      await released;
      return Response.json({ success: true, hostname: "example.com" });
    }
    if (params.get("secret") !== FAKE_SECRET) return fail(provider, "invalid-input-secret");
    if (!token) return fail(provider, "missing-input-response");
    if (token.startsWith("bad")) return fail(provider, "invalid-input-response");
    const id = `${provider}:${token}`;
    if (seen.has(id)) {
      return fail(
        provider,
        provider === "hcaptcha" ? "already-seen-response" : "timeout-or-duplicate",
      );
    }
    seen.add(id);
    const host = /^ok@([^:]+)/.exec(token)?.[1] ?? "example.com";
    const ts = new Date().toISOString();
    if (provider === "turnstile") {
      return Response.json({
        success: true,
        challenge_ts: ts,
        hostname: host,
        "error-codes": [],
        action: "",
        cdata: "",
        metadata: { ephemeral_id: "x:fake" },
      });
    }
    if (provider === "hcaptcha") {
      return Response.json({ success: true, challenge_ts: ts, hostname: host, credit: false });
    }
    const v3 = /^v3:([0-9.]+):([^:]*)/.exec(token);
    if (v3) {
      return Response.json({
        success: true,
        score: Number(v3[1]),
        action: v3[2],
        challenge_ts: ts,
        hostname: host,
      });
    }
    return Response.json({ success: true, challenge_ts: ts, hostname: host });
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  return {
    urls: {
      TURNSTILE_VERIFY_URL: `${base}/turnstile`,
      HCAPTCHA_VERIFY_URL: `${base}/hcaptcha`,
      RECAPTCHA_VERIFY_URL: `${base}/recaptcha`,
    },
    requests,
    close: async () => {
      release();
      await server.shutdown();
    },
  };
}

function fail(provider: string, code: string): Response {
  const body: Record<string, unknown> = { success: false, "error-codes": [code] };
  if (provider === "turnstile") body.messages = [];
  return Response.json(body);
}

/** Solves a challenge the way the widget does and encodes the payload. */
export async function solveAltcha(challenge: unknown): Promise<string> {
  const c = challenge as Parameters<typeof solveChallenge>[0]["challenge"];
  const solution = await solveChallenge({ challenge: c, deriveKey });
  assert.ok(solution, "the challenge is solvable");
  return btoa(JSON.stringify({ challenge: c, solution }));
}
