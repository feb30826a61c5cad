/**
 * The one logger: every server log line goes through `log`. `json` (the default until the
 * composition root applies `LOG_FORMAT`) writes one JSON object a line (`time`, `level`,
 * `msg`, `request_id` during a request, then the fields); `text` writes
 * `time LEVEL msg key=value...`. Values under secret-looking names
 * and anything shaped like an API key, a bearer token or a cookie are redacted.
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** A log line's severity. */
export type LogLevel = "debug" | "info" | "warn" | "error";

/** Fields of a log line besides its message. */
export type LogFields = Record<string, unknown>;

const requestScope = new AsyncLocalStorage<string | undefined>();
let format: "text" | "json" = "json";

/** Sets the line format (the composition root, from `LOG_FORMAT`). */
export function setLogFormat(f: "text" | "json"): void {
  format = f;
}

/** Runs `fn` with `requestId` on every line it logs, however deep in its async calls. */
export function withRequestId<T>(requestId: string, fn: () => T): T {
  return requestScope.run(requestId, fn);
}

/**
 * Runs `fn` outside any request: work a request merely started (a job runner's loop) does
 * not log under its id.
 */
export function outsideRequest<T>(fn: () => T): T {
  return requestScope.run(undefined, fn);
}

/** Field names whose values are never written. */
const SECRET_NAME = /secret|password|passwd|token|authorization|cookie|api_?key|signature/i;
/** Values shaped like credentials (Formwell keys, bearer/basic credentials, cookies, URL passwords). */
const SECRET_VALUE: [RegExp, string][] = [
  [/\bfw_(live|test)_[0-9A-Za-z]{20,}/g, "[redacted]"],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, "$1 [redacted]"],
  [/\b((?:__Host-)?formwell_[a-z_]+)=[^;\s"]+/g, "$1=[redacted]"],
  [/\bwhsec_[A-Za-z0-9+/=]{8,}/g, "[redacted]"],
  [/(\w+:\/\/[^:/@\s]+:)[^@\s]+@/g, "$1[redacted]@"],
];
const secrets = new Set<string>();

/**
 * Adds process secrets (`SECRET`, SMTP password...) that must never appear in a line,
 * whatever field or message carries them.
 */
export function neverLog(...values: (string | undefined)[]): void {
  for (const v of values) if (v && v.length >= 6) secrets.add(v);
}

/** A string with every secret-shaped part replaced by `[redacted]`. */
export function redact(text: string): string {
  let out = text;
  for (const [re, to] of SECRET_VALUE) out = out.replace(re, to);
  for (const s of secrets) if (out.includes(s)) out = out.replaceAll(s, "[redacted]");
  return out;
}

function clean(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redact(value);
  if (value instanceof Error) return redact(value.stack ?? `${value.name}: ${value.message}`);
  if (value === null || typeof value !== "object" || depth > 4) return value;
  if (Array.isArray(value)) return value.map((v) => clean(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_NAME.test(k) ? "[redacted]" : clean(v, depth + 1);
  }
  return out;
}

/** Writes one line (warn and error to stderr, the rest to stdout). */
export function log(level: LogLevel, msg: string, fields: LogFields = {}): void {
  const time = new Date().toISOString();
  const request_id = requestScope.getStore();
  const rest = clean(fields) as LogFields;
  let line: string;
  if (format === "json") {
    line = JSON.stringify({ time, level, msg: redact(msg), request_id, ...rest });
  } else {
    const parts = [time, level.toUpperCase(), redact(msg)];
    if (request_id) parts.push(`request_id=${request_id}`);
    for (const [k, v] of Object.entries(rest)) {
      if (v !== undefined) parts.push(`${k}=${typeof v === "string" ? v : JSON.stringify(v)}`);
    }
    line = parts.join(" ");
  }
  if (level === "warn" || level === "error") console.error(line);
  else console.log(line);
}

/** `log` by level. */
export const logger = {
  debug: (msg: string, fields?: LogFields) => log("debug", msg, fields),
  info: (msg: string, fields?: LogFields) => log("info", msg, fields),
  warn: (msg: string, fields?: LogFields) => log("warn", msg, fields),
  error: (msg: string, fields?: LogFields) => log("error", msg, fields),
};
