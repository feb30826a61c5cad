/**
 * Service configuration, parsed once from the environment by the composition root.
 * @module
 */
import { z } from "zod";

/** Names of the rate-limited routes (SPEC part 8) and their per-minute defaults. */
export const DEFAULT_RATE_LIMITS = {
  schema: 60,
  submit: 20,
  validate: 30,
  /** Draft starts, saves, reads and resume links per IP (lib/drafts). */
  drafts: 60,
  events: 60,
  upload_url: 10,
  /** Key-authenticated calls, per workspace and route (CONTRACT). */
  workspace: 600,
  /** Admin sign-in attempts per IP. */
  login: 10,
  /** ALTCHA challenge issuance per IP. */
  challenge: 60,
} as const;

/** A rate-limited route name. */
export type RateLimitName = keyof typeof DEFAULT_RATE_LIMITS;

const bool = z
  .string()
  .trim()
  .toLowerCase()
  .transform((v) => ["1", "true", "on", "yes"].includes(v));

const rateLimits = z
  .string()
  .transform((s, ctx) => {
    try {
      return JSON.parse(s);
    } catch {
      ctx.addIssue({ code: "custom", message: "must be a JSON object" });
      return z.NEVER;
    }
  })
  .pipe(
    z.partialRecord(
      z.enum(Object.keys(DEFAULT_RATE_LIMITS) as [RateLimitName]),
      z.number().int().positive(),
    ).optional(),
  );

/** Every environment variable the service reads, with its rule and default (docs/configuration.md). */
export const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  HOST: z.string().trim().min(1).regex(/^[0-9A-Za-z.:%_-]+$/, "an IP address or host name")
    .optional(),
  BASE_URL: z.url().optional(),
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  KV_PATH: z.string().optional(),
  SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  STORAGE: z.enum(["local", "s3"]).default("local"),
  LOCAL_STORAGE_DIR: z.string().default("./data/files"),
  S3_ENDPOINT: z.url().optional(),
  S3_REGION: z.string().default("us-east-1"),
  S3_BUCKET: z.string().optional(),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_FORCE_PATH_STYLE: bool.default(false),
  TRUST_PROXY: bool.default(false),
  RATE_LIMITS: rateLimits.optional(),
  ADMIN_EMAIL: z.email().optional(),
  ADMIN_PASSWORD: z.string().min(8, "must be at least 8 characters").optional(),
  TURNSTILE_VERIFY_URL: z.url().default(
    "https://challenges.cloudflare.com/turnstile/v0/siteverify",
  ),
  HCAPTCHA_VERIFY_URL: z.url().default("https://api.hcaptcha.com/siteverify"),
  RECAPTCHA_VERIFY_URL: z.url().default("https://www.google.com/recaptcha/api/siteverify"),
  FORMWELL_ENV: z.enum(["development", "production", "test"]).default("development"),
  FORMWELL_SEED: bool.optional(),
  BODY_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(10_000),
  JOBS: z.enum(["queue", "table"]).optional(),
  // --- notifications ---
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  MAIL_FROM: z.string().trim().max(300).refine((v) => !/[\r\n]/.test(v)).optional(),
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  WEBHOOK_RETRY_DELAYS: z.string().regex(/^\d+(,\d+)*$/, "comma-separated milliseconds")
    .optional(),
  EMAIL_RETRY_DELAYS: z.string().regex(/^\d+(,\d+)*$/, "comma-separated milliseconds")
    .optional(),
  // --- operations ---
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  LOG_FORMAT: z.enum(["text", "json"]).optional(),
  LOG_REQUESTS: bool.default(false),
  OTEL_DENO: bool.default(false),
  READY_MAX_JOB_AGE_S: z.coerce.number().int().min(1).max(86_400).default(300),
  CLAMAV_URL: z.string().regex(
    /^tcp:\/\/[^/:]+(:\d+)$|^tcp:\/\/\[[^\]]+\]:\d+$/,
    "must be tcp://host:port",
  )
    .optional(),
  // --- spam: optional second opinion ---
  AKISMET_KEY: z.string().trim().min(1).max(200).optional(),
  AKISMET_URL: z.url().default("https://rest.akismet.com"),
});

/** The parsed configuration every module receives through `deps.config`. */
export interface Config {
  port: number;
  /** The address the server listens on: `HOST`, else 0.0.0.0 in production, else 127.0.0.1. */
  host: string;
  baseUrl: string;
  /** Where hosted pages and files are served (default `baseUrl`); the admin refuses its host. */
  publicBaseUrl: string;
  /** `undefined` means the platform's default KV (Deno Deploy). */
  kvPath: string | undefined;
  secret: string | undefined;
  storage: "local" | "s3";
  localStorageDir: string;
  s3: {
    endpoint?: string;
    region: string;
    bucket?: string;
    accessKeyId?: string;
    secretAccessKey?: string;
    forcePathStyle: boolean;
  };
  trustProxy: boolean;
  rateLimits: Record<RateLimitName, number>;
  admin: { email?: string; password?: string };
  captchaVerifyUrls: { turnstile: string; hcaptcha: string; recaptcha: string };
  env: "development" | "production" | "test";
  /**
   * Create the demo workspace, form and admin on an empty database: `FORMWELL_SEED`, else on
   * everywhere but `FORMWELL_ENV=production`.
   */
  seed: boolean;
  /** A request body not fully received this long after the request arrived is 408. */
  bodyTimeoutMs: number;
  /**
   * How background jobs run: `queue` (KV queues; default on a local KV) or `table` (a job
   * table with leases; default when `KV_PATH` is a KV Connect URL, or on Deno Deploy: no queues).
   */
  jobs: "queue" | "table";
  /** Email and webhooks (lib/notify). */
  notify: NotifyConfig;
  /** Metrics, logs, traces and readiness (lib/observe). */
  ops: OpsConfig;
  /** clamd's `tcp://host:port`: when set, every upload is virus-scanned (lib/uploads/clamav.ts). */
  clamavUrl: string | undefined;
  /** Akismet as a second opinion in the scoring job; off (null) unless `AKISMET_KEY` is set. */
  akismet: { key: string; url: string } | null;
}

/** Operations: `/metrics`, the log format, traces and `/readyz`. */
export interface OpsConfig {
  /** Bearer token of `GET /metrics`; unset: no metrics are kept and `/metrics` is 404. */
  metricsToken: string | undefined;
  /** `LOG_FORMAT`; default `text` in development (a terminal), else `json` (a log shipper). */
  logFormat: "text" | "json";
  /** `LOG_REQUESTS`: one line per request (method, route pattern, status, ms). */
  logRequests: boolean;
  /** `OTEL_DENO`: Deno exports traces over OTLP; Formwell adds its own spans. */
  traces: boolean;
  /** `/readyz` is 503 once the oldest due job has waited longer than this (ms). */
  readyMaxJobAgeMs: number;
}

/** Notification settings: SMTP (unset: the KV outbox), sender, webhook rules and retries. */
export interface NotifyConfig {
  smtpUrl: string | undefined;
  mailFrom: string;
  /** Lets webhooks reach loopback/private addresses and plain http (tests, intranets). */
  webhookAllowPrivate: boolean;
  /** Delay before each webhook retry (ms); its length is the number of retries. */
  webhookRetryDelays: number[];
  /** Delay before each retry of a temporary SMTP failure (ms). */
  emailRetryDelays: number[];
}

/** Webhook retry delays: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const WEBHOOK_RETRY_DELAYS = [5, 300, 1800, 7200, 18000, 36000, 36000].map((s) => s * 1000);
/** Email retry delays for temporary SMTP failures: 30 s, 5 min, 30 min, 2 h, 6 h. */
export const EMAIL_RETRY_DELAYS = [30, 300, 1800, 7200, 21600].map((s) => s * 1000);

function msList(v: string | undefined, fallback: number[]): number[] {
  return v === undefined ? fallback : v.split(",").map(Number);
}

/** Thrown by {@linkcode loadConfig} with every problem listed. */
export class ConfigError extends Error {}

/** Whether the process runs on Deno Deploy (no local filesystem, platform KV). */
export function onDeploy(env: Record<string, string | undefined>): boolean {
  return Boolean(env.DENO_DEPLOYMENT_ID);
}

/**
 * Parses the environment; fails fast listing every invalid variable.
 * `KV_PATH` defaults to `./data/formwell.kv` except on Deno Deploy, where unset means the
 * platform's KV.
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const clean = Object.fromEntries(
    Object.entries(env).filter(([, v]) => v !== undefined && v !== ""),
  );
  const parsed = envSchema.safeParse(clean);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  const deploy = onDeploy(env);
  if (e.STORAGE === "s3" && !e.S3_BUCKET) {
    throw new ConfigError("Invalid configuration:\n  S3_BUCKET: required when STORAGE=s3");
  }
  if (deploy && e.STORAGE !== "s3") {
    throw new ConfigError(
      "Invalid configuration:\n  STORAGE: must be s3 on Deno Deploy (no local filesystem)",
    );
  }
  const baseUrl = (e.BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
  return {
    port: e.PORT,
    host: e.HOST ?? (e.FORMWELL_ENV === "production" ? "0.0.0.0" : "127.0.0.1"),
    baseUrl,
    publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/+$/, "") ?? baseUrl,
    kvPath: e.KV_PATH ?? (deploy ? undefined : "./data/formwell.kv"),
    secret: e.SECRET,
    storage: e.STORAGE,
    localStorageDir: e.LOCAL_STORAGE_DIR,
    s3: {
      endpoint: e.S3_ENDPOINT,
      region: e.S3_REGION,
      bucket: e.S3_BUCKET,
      accessKeyId: e.S3_ACCESS_KEY_ID,
      secretAccessKey: e.S3_SECRET_ACCESS_KEY,
      forcePathStyle: e.S3_FORCE_PATH_STYLE,
    },
    trustProxy: e.TRUST_PROXY,
    rateLimits: { ...DEFAULT_RATE_LIMITS, ...(e.RATE_LIMITS ?? {}) },
    admin: { email: e.ADMIN_EMAIL, password: e.ADMIN_PASSWORD },
    captchaVerifyUrls: {
      turnstile: e.TURNSTILE_VERIFY_URL,
      hcaptcha: e.HCAPTCHA_VERIFY_URL,
      recaptcha: e.RECAPTCHA_VERIFY_URL,
    },
    env: e.FORMWELL_ENV,
    seed: e.FORMWELL_SEED ?? e.FORMWELL_ENV !== "production",
    bodyTimeoutMs: e.BODY_TIMEOUT_MS,
    jobs: e.JOBS ?? (deploy || /^https?:\/\//.test(e.KV_PATH ?? "") ? "table" : "queue"),
    notify: {
      smtpUrl: e.SMTP_URL,
      mailFrom: e.MAIL_FROM ??
        `Formwell <no-reply@${new URL(e.BASE_URL ?? "http://localhost").hostname}>`,
      webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
      webhookRetryDelays: msList(e.WEBHOOK_RETRY_DELAYS, WEBHOOK_RETRY_DELAYS),
      emailRetryDelays: msList(e.EMAIL_RETRY_DELAYS, EMAIL_RETRY_DELAYS),
    },
    ops: {
      metricsToken: e.METRICS_TOKEN,
      logFormat: e.LOG_FORMAT ?? (e.FORMWELL_ENV === "development" ? "text" : "json"),
      logRequests: e.LOG_REQUESTS,
      traces: e.OTEL_DENO,
      readyMaxJobAgeMs: e.READY_MAX_JOB_AGE_S * 1000,
    },
    clamavUrl: e.CLAMAV_URL,
    akismet: e.AKISMET_KEY ? { key: e.AKISMET_KEY, url: e.AKISMET_URL.replace(/\/+$/, "") } : null,
  };
}
