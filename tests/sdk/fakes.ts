/**
 * Test doubles for the client's runtime: a scripted fetch that records every request, a
 * sleep whose timers the test releases, and a fixed random source.
 * @module
 */
import type { Runtime } from "@/sdk/mod.ts";

/** One request the client made. */
export interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

/** What the script answers: a response, or "network" for a failed connection. */
export type Answer = Response | "network";

/** A JSON response. */
export function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      "content-type": "application/json",
      "x-request-id": `req_${status}`,
    },
  });
}

/** A fetch answering each request with `script(request, index)`; `sent` records them. */
export function scriptedFetch(
  script: (req: Sent, n: number) => Answer | Promise<Answer>,
) {
  const sent: Sent[] = [];
  const fetch = (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    let body: unknown = init.body;
    if (typeof init.body === "string") body = JSON.parse(init.body);
    const req = {
      method: init.method ?? "GET",
      url: String(input),
      headers,
      body,
    };
    sent.push(req);
    const answer = await script(req, sent.length - 1);
    if (answer === "network") throw new TypeError("Failed to fetch");
    return answer;
  }) as typeof globalThis.fetch;
  return { fetch, sent };
}

/** Sleeps that wait until the test releases them; `delays` records every one asked. */
export function manualClock() {
  const pending: { ms: number; resolve: () => void }[] = [];
  const delays: number[] = [];
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      delays.push(ms);
      pending.push({ ms, resolve });
    });
  /** Releases every pending sleep, and those they lead to, until `done()` or 200 rounds. */
  async function runUntil(done: () => boolean): Promise<void> {
    for (let i = 0; i < 200 && !done(); i++) {
      // Lets promise chains reach their next sleep (a macrotask turn, not a timed wait).
      await new Promise((r) => setTimeout(r, 0));
      for (const p of pending.splice(0)) p.resolve();
    }
    if (!done()) throw new Error("condition not reached after 200 rounds");
  }
  return { sleep, delays, pending, runUntil };
}

/** A runtime over a scripted fetch and a manual clock, with fixed randomness. */
export function testRuntime(
  fetch: typeof globalThis.fetch,
  clock = manualClock(),
  random = () => 0.5,
): Partial<Runtime> {
  let n = 0;
  return {
    fetch,
    sleep: clock.sleep,
    random,
    now: () => 1_700_000_000_000,
    newKey: () => `key-${++n}`,
  };
}
