/**
 * zod schemas and inferred types shared by the API, the admin, the CLI and the queue.
 * @module
 */
import { z } from "zod";
import { patternProblem } from "@/lib/forms/patterns.ts";
import { PLAN_NAMES } from "@/lib/workspaces/plans.ts";

/** Field types (CONTRACT "Form definition"). */
export const FIELD_TYPES = [
  "text",
  "textarea",
  "email",
  "url",
  "tel",
  "number",
  "integer",
  "boolean",
  "select",
  "multiselect",
  "radio",
  "date",
  "datetime",
  "hidden",
  "file",
  "image",
  "signature",
  "video",
  "audio",
] as const;
/** A field type. */
export type FieldType = typeof FIELD_TYPES[number];
/** Field types whose value is a file reference object. */
export const FILE_TYPES: readonly FieldType[] = ["file", "image", "signature", "video", "audio"];
/** Whether a field type holds a file reference. */
export function isFileType(t: FieldType): boolean {
  return FILE_TYPES.includes(t);
}

/** CAPTCHA providers. */
export const CAPTCHA_PROVIDERS = ["none", "turnstile", "hcaptcha", "recaptcha", "altcha"] as const;

const fieldName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, "letters, digits, _ . - only; starts with a letter or _");
const mime = z.string().regex(
  /^[a-z0-9.+-]+\/(\*|[a-z0-9.+-]+)$/i,
  "a MIME type like image/png or image/*",
);

/** One field of a form. */
export const fieldSchema = z
  .object({
    id: z.string().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/).optional(),
    name: fieldName,
    label: z.string().max(200).optional(),
    type: z.enum(FIELD_TYPES),
    required: z.boolean().default(false),
    minLength: z.number().int().min(0).optional(),
    maxLength: z.number().int().min(1).max(60_000).optional(),
    pattern: z.string().max(500).optional(),
    min: z.union([z.number(), z.string()]).optional(),
    max: z.union([z.number(), z.string()]).optional(),
    options: z.array(z.string().min(1).max(200)).min(1).max(500).optional(),
    allowedTypes: z.array(mime).min(1).max(50).optional(),
    maxSizeMB: z.number().positive().max(5_000).optional(),
    placeholder: z.string().max(200).optional(),
    help: z.string().max(500).optional(),
  })
  .strict()
  .superRefine((f, ctx) => {
    if (f.pattern !== undefined) {
      // Browsers check it too (the hosted page's pattern attribute): it must be valid in both.
      let problem = patternProblem(f.pattern);
      try {
        new RegExp(f.pattern, "u");
      } catch {
        problem ??= "not a valid regular expression";
      }
      if (problem) ctx.addIssue({ code: "custom", path: ["pattern"], message: problem });
    }
    if (["select", "multiselect", "radio"].includes(f.type) && !f.options) {
      ctx.addIssue({ code: "custom", path: ["options"], message: `required for type ${f.type}` });
    }
    if (f.minLength !== undefined && f.maxLength !== undefined && f.minLength > f.maxLength) {
      ctx.addIssue({ code: "custom", path: ["minLength"], message: "greater than maxLength" });
    }
  });
/** A field as given in a form definition. */
export type FieldInput = z.input<typeof fieldSchema>;
/** A stored field: its id is always set. */
export type Field = z.output<typeof fieldSchema> & { id: string };

/** The CAPTCHA configuration of a form; `secret` is never returned to clients. */
export const captchaSchema = z
  .object({
    provider: z.enum(CAPTCHA_PROVIDERS),
    siteKey: z.string().max(200).optional(),
    secret: z.string().max(500).optional(),
    /** reCAPTCHA v3: minimum score (0..1) and expected action. */
    minScore: z.number().min(0).max(1).optional(),
    action: z.string().max(100).optional(),
    /** reCAPTCHA: "v2" or "v3". */
    version: z.enum(["v2", "v3"]).optional(),
    /** Hostnames a provider's answer must name; defaults to the allowed origins' hosts. */
    hostnames: z.array(z.string().max(253)).max(50).optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (["turnstile", "hcaptcha", "recaptcha"].includes(c.provider) && !c.secret) {
      ctx.addIssue({ code: "custom", path: ["secret"], message: `required for ${c.provider}` });
    }
  });
/** A form's CAPTCHA configuration. */
export type CaptchaConfig = z.output<typeof captchaSchema>;

const origin = z
  .string()
  .max(300)
  .refine((o) => {
    try {
      const u = new URL(o);
      return (u.protocol === "https:" || u.protocol === "http:") &&
        u.origin === o.replace(/\/$/, "");
    } catch {
      return false;
    }
  }, "an origin like https://example.com (scheme, host and optional port; no path)")
  .transform((o) => o.replace(/\/$/, ""));

const redirectUrl = z.url({ protocol: /^https?$/ }).max(2000);

/** A form definition (CLI `--file`, admin editor). Unknown keys are rejected. */
export const formDefinitionSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    fields: z.array(fieldSchema).max(200).default([]),
    captcha: captchaSchema.nullable().optional(),
    honeypot: fieldName.nullable().optional(),
    allowed_origins: z.array(origin).max(100).default([]),
    accepting: z.boolean().default(true),
    redirect: z
      .object({ success: redirectUrl.optional(), error: redirectUrl.optional() })
      .strict()
      .optional(),
  })
  .strict()
  .superRefine((d, ctx) => {
    const names = new Set<string>();
    const ids = new Set<string>();
    d.fields.forEach((f, i) => {
      if (names.has(f.name)) {
        ctx.addIssue({
          code: "custom",
          path: ["fields", i, "name"],
          message: `duplicate field name ${f.name}`,
        });
      }
      names.add(f.name);
      if (f.id) {
        if (ids.has(f.id)) {
          ctx.addIssue({
            code: "custom",
            path: ["fields", i, "id"],
            message: `duplicate field id ${f.id}`,
          });
        }
        ids.add(f.id);
      }
    });
    if (d.honeypot && names.has(d.honeypot)) {
      ctx.addIssue({
        code: "custom",
        path: ["honeypot"],
        message: "must not be the name of a field",
      });
    }
  });
/** A form definition as given. */
export type FormDefinition = z.input<typeof formDefinitionSchema>;

/** A stored form. `id` is the public id. */
export interface Form {
  id: string;
  workspace_id: string;
  name: string;
  fields: Field[];
  captcha: CaptchaConfig | null;
  honeypot: string | null;
  allowed_origins: string[];
  accepting: boolean;
  redirect: { success?: string; error?: string };
  schema_version: number;
  created_at: string;
  updated_at: string;
  /** Admin UI (issue 18): set while archived (closed and listed apart); absent otherwise. */
  archived_at?: string;
}

/** A workspace. */
export interface Workspace {
  id: string;
  name: string;
  plan: typeof PLAN_NAMES[number];
  suspended: boolean;
  created_at: string;
}

/** API key scopes. */
export const SCOPES = ["submit", "read", "admin"] as const;
/** An API key scope. */
export type Scope = typeof SCOPES[number];

/** A stored API key: never the raw value, only its SHA-256 digest. */
export interface ApiKey {
  id: string;
  workspace_id: string;
  name: string;
  type: "live" | "test";
  scopes: Scope[];
  prefix: string;
  hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked: boolean;
  revoked_at: string | null;
}

/** The file reference object of SPEC part 2. */
export const fileRefSchema = z
  .object({
    path: z.string().min(1).max(500),
    originalFilename: z.string().max(255).optional(),
    mimeType: z.string().max(200).optional(),
    sizeBytes: z.number().int().min(0).optional(),
  })
  .strict();
/** A file reference. */
export type FileRef = {
  path: string;
  originalFilename: string;
  mimeType: string;
  sizeBytes: number;
};

/** Submission statuses. */
export const STATUSES = ["completed", "suspicious", "spam"] as const;
/** A submission status. */
export type Status = typeof STATUSES[number];

/** What the request told us about its origin, kept for spam scoring (never returned). */
export interface SubmissionSignals {
  ip?: string;
  user_agent?: string;
  origin?: string;
  captcha?: { provider: string; score?: number };
  /** Milliseconds from form render to submit, when the client reports it. */
  fill_ms?: number;
  via_key?: boolean;
  /** CAPTCHA/honeypot failures of the same identity in the failure window, at submit. */
  failures?: number;
}

/** A stored submission. */
export interface Submission {
  id: string;
  form_id: string;
  workspace_id: string;
  mode: "live" | "test";
  number: number;
  fields: Record<string, unknown>;
  metadata: Record<string, unknown>;
  status: Status;
  created_at: string;
  /** Storage paths of attached files. */
  files: string[];
  signals: SubmissionSignals;
  /** The spam verdict, when the submission scored above 0 (or an admin re-labelled it). */
  spam?: { score: number; reasons: string[]; scored_at: string; manual?: boolean };
}

/** A user of the admin. */
export interface User {
  id: string;
  email: string;
  password_hash: string;
  workspace_ids: string[];
  /** An instance owner may create workspaces, change plans and suspend. */
  owner: boolean;
  created_at: string;
}
