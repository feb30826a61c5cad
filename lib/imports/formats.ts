/**
 * The export formats the importer reads: which column holds a row's time, which hold the
 * other service's own bookkeeping (kept in `metadata`), which mean nothing here (dropped),
 * and how a row says it was spam. Everything else maps to the form's fields by name, or
 * goes to `metadata`. docs/importing.md lists them for users.
 * @module
 */
import type { Status } from "@/lib/schemas.ts";

/** The formats `import --format` takes. */
export const IMPORT_FORMATS = ["csv", "formspree", "basin", "netlify"] as const;
/** An import format. */
export type ImportFormat = typeof IMPORT_FORMATS[number];

/** How one format's columns are read (names compared case-insensitively). */
export interface FormatSpec {
  /** Columns that may hold the row's time, the first present (and not a field) wins. */
  time: string[];
  /** Bookkeeping columns kept in `metadata` under the name given here. */
  meta: Record<string, string>;
  /** Columns dropped (the service's own form plumbing). */
  drop: string[];
  /** A column that says the row's status (spam or not), read by `read`. */
  status?: { column: string; read: (value: string) => Status | null };
  /** A column holding more metadata as a JSON object (Formwell's own export). */
  jsonMeta?: string;
}

const TRUE = /^(true|yes|1|spam)$/i;

/** Every format's column conventions. */
export const FORMATS: Record<ImportFormat, FormatSpec> = {
  // Any CSV with a header row, Formwell's own export included (id, submission_number,
  // created_at, status, one column per field, metadata as JSON).
  csv: {
    time: ["created_at", "submitted_at", "submitted at", "date", "timestamp", "time"],
    meta: { id: "source_id", submission_number: "source_number" },
    drop: [],
    status: {
      column: "status",
      read: (v) => {
        const s = v.trim().toLowerCase();
        return s === "completed" || s === "suspicious" || s === "spam" ? s : null;
      },
    },
    jsonMeta: "metadata",
  },
  // Formspree: `_date` (ISO 8601, UTC without a suffix) and one column per field name;
  // other `_` columns are Formspree's own and kept in metadata under their names.
  formspree: {
    time: ["_date"],
    meta: { _id: "source_id", _status: "formspree_status", _referrer: "referrer" },
    drop: ["_gotcha", "_next", "_subject", "_replyto", "_cc", "_language"],
  },
  // Basin: `id`, `created_at`, one column per field, the request's `ip`, `user_agent`,
  // `referrer`, and `spam` (true for submissions Basin filtered).
  basin: {
    time: ["created_at", "submitted_at"],
    meta: { id: "source_id", ip: "ip", user_agent: "user_agent", referrer: "referrer" },
    drop: ["_gotcha"],
    status: { column: "spam", read: (v) => TRUE.test(v.trim()) ? "spam" : null },
  },
  // Netlify Forms: `id`, `number`, `created_at`, one column per field, the request's
  // `ip`, `user_agent`, `referrer`; `form-name` and `bot-field` are Netlify's plumbing.
  netlify: {
    time: ["created_at"],
    meta: {
      id: "source_id",
      number: "source_number",
      ip: "ip",
      user_agent: "user_agent",
      referrer: "referrer",
      site_url: "site_url",
    },
    drop: ["form-name", "bot-field", "form_id", "site_name", "summary"],
  },
};

/** Whether `s` names an import format. */
export function isImportFormat(s: string): s is ImportFormat {
  return (IMPORT_FORMATS as readonly string[]).includes(s);
}
