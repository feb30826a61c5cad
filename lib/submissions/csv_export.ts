/**
 * CSV export of a form's submissions, streamed (export_stream.ts walks the index). Cells are CSV-injection safe (OWASP): a text cell that a
 * spreadsheet would read as a formula gets a leading `'`.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import type { Mode } from "@/lib/kv/keys.ts";
import { type Form, isFileType, type Submission } from "@/lib/schemas.ts";
import { type ExportFilter, exportStream } from "./export_stream.ts";

export type { ExportFilter };

/** One CSV cell: quoted when needed; formula-like text neutralised with `'`. */
export function csvCell(value: unknown): string {
  let text: string;
  if (value === undefined || value === null) text = "";
  else if (typeof value === "string") text = formulaLike(value) ? `'${value}` : value;
  else if (typeof value === "number" || typeof value === "boolean") text = String(value);
  else if (Array.isArray(value)) return csvCell(value.map(plain).join("; "));
  else return csvCell(plain(value));
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * Whether a spreadsheet could read the text as a formula: it starts with a tab or CR, or
 * with `= + - @` once NFKC-normalised (fullwidth `＝` is `=`) and stripped of leading
 * whitespace, control and format characters (a spreadsheet may trim them).
 */
export function formulaLike(text: string): boolean {
  if (/^[\t\r]/.test(text)) return true;
  return /^[\s\p{Cc}\p{Cf}]*[=+\-@]/u.test(text.normalize("NFKC"));
}

/** A nested value as text: a file reference by its name and path, else JSON. */
function plain(v: unknown): string {
  if (v && typeof v === "object" && "path" in v) {
    const f = v as { path: string; originalFilename?: string };
    return f.originalFilename ? `${f.originalFilename} (${f.path})` : f.path;
  }
  return typeof v === "string" ? v : JSON.stringify(v);
}

/** One CSV line (RFC 4180: CRLF). */
export function csvRow(cells: unknown[]): string {
  return cells.map(csvCell).join(",") + "\r\n";
}

/** The header: fixed columns, then one per form field, then metadata as JSON. */
export function csvHeader(form: Form): string[] {
  return [
    "id",
    "submission_number",
    "created_at",
    "status",
    ...form.fields.map((f) => f.name),
    "metadata",
  ];
}

/** Turns a file field's stored reference into a link (the admin's file page). */
export type FileLinker = (s: Submission, path: string) => string;

function rowOf(form: Form, s: Submission, fileLink?: FileLinker): unknown[] {
  const meta = Object.keys(s.metadata ?? {}).length ? JSON.stringify(s.metadata) : "";
  const cell = (f: Form["fields"][number]) => {
    const v = s.fields[f.name];
    if (!fileLink || !isFileType(f.type) || v === undefined || v === null) return v;
    const refs = (Array.isArray(v) ? v : [v]) as { path?: unknown }[];
    return refs.map((r) => typeof r?.path === "string" ? fileLink(s, r.path) : "").join(" ");
  };
  return [s.id, s.number, s.created_at, s.status, ...form.fields.map(cell), meta];
}

/** The CSV export as a byte stream (UTF-8 with a BOM so spreadsheets pick the encoding). */
export function submissionsCsv(
  deps: Pick<Deps, "kv" | "now">,
  form: Form,
  mode: Mode,
  filter: ExportFilter,
  fileLink?: FileLinker,
): ReadableStream<Uint8Array> {
  return exportStream(deps, form.id, mode, filter, {
    head: "\uFEFF" + csvRow(csvHeader(form)),
    row: (s) => csvRow(rowOf(form, s, fileLink)),
    tail: "",
  });
}
