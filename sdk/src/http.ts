/**
 * One HTTP exchange with the service, and its retries: network errors, 5xx, 408 and 429
 * (not `quota_exceeded`) are retried with capped exponential backoff and full jitter (the
 * service sends no `Retry-After`). Fetch, clock, randomness and sleep are injected.
 * @module
 */
import { abortError, errorFromAnswer, FormwellError, networkError } from "./errors.ts";

/** What the client takes from its environment; tests replace any of it. */
export interface Runtime {
  fetch: typeof fetch;
  /** A number in [0, 1). */
  random: () => number;
  now: () => number;
  /** Resolves after `ms`; rejects with an `aborted` error when `signal` aborts. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** A fresh Idempotency-Key. */
  newKey: () => string;
  /** Whether uploads use XMLHttpRequest (browsers: it reports upload progress, fetch cannot). */
  xhr: boolean;
}

/** How often and how long to retry. */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  baseMs: number;
  capMs: number;
}

/** Retries of one call: four attempts over about two seconds on average. */
export const RETRY: RetryPolicy = { attempts: 4, baseMs: 500, capMs: 30_000 };

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(t);
      reject(abortError());
    };
    signal?.addEventListener("abort", stop, { once: true });
  });
}

/** A random key: `fw_` and 32 hex characters (getRandomValues works outside secure contexts). */
function newKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return "fw_" +
    Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The runtime of this environment, with `over` replacing parts of it. */
export function runtimeOf(over: Partial<Runtime> = {}): Runtime {
  return {
    fetch: (input, init) => globalThis.fetch(input, init),
    random: Math.random,
    now: Date.now,
    sleep,
    newKey,
    xhr: typeof XMLHttpRequest === "function" && !over.fetch,
    ...over,
  };
}

/** The delay before retry number `attempt` (0 = the first retry): full jitter, capped. */
export function backoffMs(
  attempt: number,
  policy: RetryPolicy,
  random: () => number,
): number {
  return Math.floor(
    random() * Math.min(policy.capMs, policy.baseMs * 2 ** attempt),
  );
}

/** Whether a failure may pass with time: no answer, 5xx, 408, or a rate limit (not a quota). */
export function isTransient(err: unknown): boolean {
  if (!(err instanceof FormwellError)) return false;
  if (err.status === 0) return err.code === "network_error";
  return err.status >= 500 || err.status === 408 ||
    (err.status === 429 && err.code !== "quota_exceeded");
}

/**
 * Runs `attempt` until it succeeds, fails for good (`retryable` says no), or the policy's
 * attempts are spent.
 */
export async function withRetry<T>(
  rt: Runtime,
  policy: RetryPolicy,
  attempt: () => Promise<T>,
  signal?: AbortSignal,
  retryable: (err: unknown) => boolean = isTransient,
): Promise<T> {
  for (let n = 0;; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!retryable(err) || n + 1 >= policy.attempts || signal?.aborted) {
        throw err;
      }
      await rt.sleep(backoffMs(n, policy, rt.random), signal);
    }
  }
}

/** One request: a method, a path under the base URL, and an optional JSON body. */
export interface Call {
  method?: string;
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** Where and as whom the client calls. */
export interface Endpoint {
  baseUrl: string;
  apiKey?: string;
  rt: Runtime;
}

/** The URL of `path` under the base URL with the defined query parameters. */
export function urlOf(
  baseUrl: string,
  path: string,
  query: Call["query"] = {},
): string {
  const url = new URL(baseUrl.replace(/\/+$/, "") + path);
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined) url.searchParams.set(k, String(v));
  }
  return url.toString();
}

/** Sends one request (no retry); a non-2xx answer or no answer throws a `FormwellError`. */
export async function send<T>(ep: Endpoint, call: Call): Promise<T> {
  const headers: Record<string, string> = {
    accept: "application/json",
    ...call.headers,
  };
  if (call.body !== undefined) headers["content-type"] = "application/json";
  if (ep.apiKey) headers.authorization = `Bearer ${ep.apiKey}`;
  let res: Response;
  try {
    res = await ep.rt.fetch(urlOf(ep.baseUrl, call.path, call.query), {
      method: call.method ?? "GET",
      headers,
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      signal: call.signal,
    });
  } catch (err) {
    throw networkError(err);
  }
  let body: unknown = null;
  try {
    const text = await res.text();
    body = text ? JSON.parse(text) : null;
  } catch (err) {
    // A proxy's HTML page is no JSON; a body cut off mid-way is no answer at all.
    if ((err as Error)?.name !== "SyntaxError") throw networkError(err);
  }
  if (!res.ok) {
    throw errorFromAnswer(
      res.status,
      body,
      res.headers.get("x-request-id") ?? undefined,
    );
  }
  return body as T;
}
