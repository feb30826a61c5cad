/**
 * Props of the hosted form island (server-rendered, then hydrated in the browser).
 * Only types come from lib/: this folder ships to the browser.
 * @module
 */
import type { Field } from "@/lib/schemas.ts";
import type { HostedDrafts } from "./drafts.tsx";

/** A posted value as the form re-renders it. */
export type PostedValue = string | string[];

/** The CAPTCHA of the form as the page needs it (never a secret). */
export interface HostedCaptcha {
  provider: "turnstile" | "hcaptcha" | "recaptcha" | "altcha";
  siteKey: string | null;
  /** reCAPTCHA only. */
  version?: "v2" | "v3";
  action?: string;
  /** The widget element, server-built HTML (left alone by hydration). */
  widgetHtml: string;
}

/** A notice above the form: a message and optional links to the fields in error. */
export interface HostedNotice {
  kind: "error" | "info";
  message: string;
  /** Set on a field summary: the island keeps it in step with the fields' errors. */
  items?: { field: string; message: string }[];
  /** A field summary's messages that name no field (kept while the summary shows). */
  extra?: string;
}

/** A step of the form as the page shows it. */
export interface HostedStep {
  title: string;
  /** Field names, in the form's order. */
  fields: string[];
  /** Shown only while this JSON Logic expression holds. */
  when?: unknown;
}

/** Everything the hosted form renders from. */
export interface HostedFormProps extends Record<string, unknown> {
  formId: string;
  fields: Field[];
  schemaVersion: number;
  honeypot: string | null;
  captcha: HostedCaptcha | null;
  /** The no-JS submit URL (also the JSON one). */
  action: string;
  /** `/api/v1`. */
  apiBase: string;
  idempotencyKey: string;
  values: Record<string, PostedValue>;
  /** Field name to message. */
  errors: Record<string, string>;
  notice: HostedNotice | null;
  /** Where a JSON submit goes once stored (`submission_id` is appended). */
  successUrl: string;
  /** An allowed `_redirect` carried through a re-render. */
  redirect: string | null;
  submitLabel: string;
  /** The page's language (BCP 47 code) and writing direction. */
  lang: string;
  dir: "ltr" | "rtl";
  /** Field name to option value to the text shown in the page's language. */
  optionTexts: Record<string, Record<string, string>>;
  /** The form's steps; empty for a one-page form. */
  steps: HostedStep[];
  /** Saved progress, when the form keeps drafts (islands/hosted/drafts.tsx). */
  drafts?: HostedDrafts | null;
}
