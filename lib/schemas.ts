/**
 * zod schemas and inferred types shared by the API, the admin, the CLI and the queue.
 * @module
 */
import { z } from "zod";
import {
  notificationFieldProblems,
  type Notifications,
  notificationsSchema,
} from "@/lib/notify/settings.ts";
import { matchesPattern, patternProblem } from "@/lib/forms/patterns.ts";
import { definitionProblems, type Translations } from "@/lib/rules/mod.ts";
import { PLAN_NAMES } from "@/lib/workspaces/plans.ts";
import { type DraftSettings, draftSettingsSchema } from "@/lib/drafts/settings.ts";

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
    /** JSON Logic: the field is shown, required and stored only while this holds. */
    when: z.unknown().optional(),
    /** JSON Logic: the value the server computes and stores (a sent value is ignored). */
    compute: z.unknown().optional(),
    /** The value used when the data does not hold the field; the hosted page's initial value. */
    default: z.unknown().optional(),
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

/** How much of the submitter's IP address a form stores (privacy, issue 19). */
export const STORE_IP_POLICIES = ["full", "truncated", "none"] as const;
/** An IP storage policy. */
export type StoreIpPolicy = typeof STORE_IP_POLICIES[number];
/** Days submissions are kept (1..3650), or null to keep them forever. */
export const retentionDaysSchema = z.number().int().min(1).max(3650).nullable();

/**
 * A form's spam score thresholds (points 1..101; 101 = never): at `suspicious_at` a
 * submission is `suspicious`, at `spam_at` it is `spam`. Omitted ones keep the defaults.
 */
export const spamFilterSchema = z
  .object({
    suspicious_at: z.number().int().min(1).max(101).optional(),
    spam_at: z.number().int().min(1).max(101).optional(),
  })
  .strict()
  .refine(
    (f) => (f.suspicious_at ?? 40) <= (f.spam_at ?? 70),
    { message: "suspicious_at must not be above spam_at", path: ["suspicious_at"] },
  );
/** A form's spam score thresholds. */
export type SpamFilter = z.output<typeof spamFilterSchema>;

/** One step of a multi-step hosted page: a title, its fields by name, an optional condition. */
export const stepSchema = z
  .object({
    title: z.string().trim().min(1).max(200),
    fields: z.array(fieldName).min(1).max(200),
    when: z.unknown().optional(),
  })
  .strict();
/** A form step. */
export type Step = z.output<typeof stepSchema>;

const text = (max: number) => z.string().max(max).optional();
/** A form's texts per language (CONTRACT "Form logic and languages"). */
export const translationsSchema = z.record(
  z.string().max(35),
  z.object({
    form: z.object({ title: text(200), submit: text(100), success: text(1000) }).strict()
      .optional(),
    fields: z.record(
      z.string().max(64),
      z.object({
        label: text(200),
        help: text(500),
        placeholder: text(200),
        options: z.record(z.string().max(200), z.string().max(200)).optional(),
      }).strict(),
    ).optional(),
    /** Step titles: a step's title in the default language to its text in this one. */
    steps: z.record(z.string().max(200), z.string().max(200)).optional(),
  }).strict(),
).refine((t) => Object.keys(t).length <= 50, "at most 50 languages");

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
    // omitted = the workspace default (create) or unchanged (update).
    retention_days: retentionDaysSchema.optional(),
    store_ip: z.enum(STORE_IP_POLICIES).optional(),
    store_user_agent: z.boolean().optional(),
    /** Hosted page: plain text shown under the heading (blank lines split paragraphs). */
    intro: z.string().trim().max(2000).optional(),
    /** Hosted thank-you page: plain text shown instead of the default message. */
    thank_you: z.string().trim().max(1000).optional(),
    notifications: notificationsSchema.optional(),
    /** Spam score thresholds; omitted = the defaults (create) or unchanged (update). */
    spam_filter: spamFilterSchema.nullable().optional(),
    /** Hosted page steps; every shown field belongs to exactly one. */
    steps: z.array(stepSchema).max(50).optional(),
    /** The language of the form's own texts (default `en`). */
    default_language: z.string().max(35).optional(),
    translations: translationsSchema.optional(),
    /** Saved progress (lib/drafts); omitted = off (create) or unchanged (update). */
    drafts: draftSettingsSchema.nullable().optional(),
  })
  .strict()
  .superRefine((d, ctx) => {
    // Conditions, computations, defaults, steps and translations (lib/rules).
    for (const p of definitionProblems(d, matchesPattern)) {
      ctx.addIssue({ code: "custom", path: p.path, message: p.message });
    }
    for (const [path, message] of notificationFieldProblems(d.notifications, d.fields)) {
      ctx.addIssue({ code: "custom", path, message });
    }
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
  /** Its slug, unique in the workspace (`key:<slug>` names it wherever a public id does). */
  key?: string;
  name: string;
  fields: Field[];
  captcha: CaptchaConfig | null;
  honeypot: string | null;
  allowed_origins: string[];
  accepting: boolean;
  redirect: { success?: string; error?: string };
  /** Email notification settings (lib/notify); absent or null: none. */
  notifications?: Notifications | null;
  schema_version: number;
  created_at: string;
  updated_at: string;
  /** Privacy settings; absent = forever, "truncated", true (lib/privacy/ip.ts privacyOf). */
  retention_days?: number | null;
  store_ip?: StoreIpPolicy;
  store_user_agent?: boolean;
  /** Hosted page texts (plain text); absent: no intro, the default thank-you text. */
  intro?: string;
  thank_you?: string;
  /** Set while archived (closed and listed apart); absent otherwise. */
  archived_at?: string;
  /** Spam score thresholds; absent or null: the defaults (40 suspicious, 70 spam). */
  spam_filter?: SpamFilter | null;
  /** Hosted page steps; absent: one page. */
  steps?: Step[];
  /** The language of the form's own texts; absent: `en`. */
  default_language?: string;
  /** The form's texts in other languages; absent: none. */
  translations?: Translations;
  /** Saved progress: visitors' drafts and how long they live; absent or null: off. */
  drafts?: DraftSettings | null;
}

/** A workspace. */
export interface Workspace {
  id: string;
  name: string;
  plan: typeof PLAN_NAMES[number];
  suspended: boolean;
  created_at: string;
  /** Retention given to new forms that do not set one (privacy; absent = forever). */
  default_retention_days?: number | null;
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
  /** Earlier submissions to the form from the same identity in the recent window (at write). */
  recent?: number;
  /** Whether an earlier submission to the form in the window had the same values (at write). */
  duplicate?: boolean;
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
  /**
   * The owner email's subject and reply-to a form post asked for (`_subject`, `_replyto`):
   * used by the notification only, never shown as data or metadata.
   */
  owner_mail?: { subject?: string; reply_to?: string };
  /** The spam verdict, when the submission scored above 0 (or an admin re-labelled it). */
  spam?: {
    score: number;
    reasons: string[];
    scored_at: string;
    manual?: boolean;
    /** The content model's spam probability and the tokens that drove it (lib/spam). */
    content?: { p: number; tokens: Array<{ token: string; weight: number }> };
  };
  /** Digests under which the email index holds it (privacy), so a delete removes exactly those. */
  email_digests?: string[];
  /**
   * When the final verdict was given: by the storing commit, or with Akismet on by the
   * scoring job (absent until then: the status is the signals' alone). The API shows it as
   * `metadata.scored_at`.
   */
  scored_at?: string;
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
  /** Role per workspace id in `workspace_ids`; a workspace missing here grants nothing. */
  roles?: Record<string, Role>;
  /** Epoch ms of the last password change or reset: sessions started before it are over. */
  password_changed_at?: number;
}

// --- Team accounts ---

/** Workspace roles, weakest first: viewer reads; admin also edits, deletes, exports and
 * manages keys; owner also manages members. */
export const ROLES = ["viewer", "admin", "owner"] as const;
/** A member's role in one workspace. */
export type Role = typeof ROLES[number];
