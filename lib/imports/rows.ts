/**
 * Reading an import file: the header's mapping (which column is the time, which go to
 * which field, which to `metadata`, which are dropped) and each row as a submission to
 * be, with its line number, or as a bad row with the reason. Rows carry a digest (HMAC of
 * form, format, their cells by column and how many identical rows came before), so the
 * same row imported again is recognised.
 * @module
 */
import { parse } from "csv-parse/sync";
import { errors } from "@/lib/errors.ts";
import { hmacSha256Hex } from "@/lib/hmac.ts";
import {
  type Field,
  type Form,
  isFileType,
  type Status,
  type SubmissionSignals,
} from "@/lib/schemas.ts";
import { FORMATS, type ImportFormat } from "./formats.ts";
import { coerce, parseTime } from "./values.ts";

/** Stored `data` + `metadata` at most (CONTRACT), as the submit path limits it. */
const MAX_STORED_BYTES = 60 * 1024;
/** How far ahead of now a row's time may be (clock skew of the exporting service). */
const FUTURE_SLACK_MS = 86_400_000;

/** Where each column goes. */
export interface Mapping {
  time: string | null;
  fields: { column: string; field: string }[];
  metadata: { column: string; key: string }[];
  /** The column read as the row's status, if any. */
  status: string | null;
  dropped: string[];
}

/** A row that becomes a submission. */
export interface ImportRow {
  line: number;
  created_at: string;
  fields: Record<string, unknown>;
  metadata: Record<string, unknown>;
  status: Status;
  /** The sender's address and browser, when the export has them (stored per the form's policy). */
  signals: SubmissionSignals;
  digest: string;
}

/** A row skipped, with why. */
export interface BadRow {
  line: number;
  error: string;
}

/** A file read: its mapping, good rows (file order) and bad ones. */
export interface ParsedImport {
  mapping: Mapping;
  rows: ImportRow[];
  bad: BadRow[];
}

/** A parsed CSV record with the line it started on. */
interface Record_ {
  cells: string[];
  line: number;
}

/**
 * The records of a CSV text (header first), line breaks in cells as LF; a file CSV cannot
 * read is a 400.
 */
export function csvRecords(text: string): Record_[] {
  let raw: { record: string[]; info: { lines: number; empty_lines: number } }[];
  try {
    // Line breaks as LF: csv-parse counts a CRLF inside a quoted cell as two lines.
    raw = parse(text.replace(/\r\n/g, "\n"), {
      bom: true,
      info: true,
      relax_column_count: true,
      skip_empty_lines: true,
    }) as unknown as typeof raw;
  } catch (err) {
    const line = (err as { lines?: number }).lines;
    throw errors.badRequest(
      `The file is not valid CSV${line ? ` (line ${line})` : ""}: ${(err as Error).message}`,
    );
  }
  let end = 0;
  let empty = 0;
  return raw.map(({ record, info }) => {
    const line = end + 1 + (info.empty_lines - empty);
    end = info.lines;
    empty = info.empty_lines;
    return { cells: record, line };
  });
}

/** The column-to-field mapping of a header row for `form` in `format`. */
export function mapHeader(form: Form, format: ImportFormat, header: string[]): Mapping {
  const spec = FORMATS[format];
  const byName = new Map<string, Field>();
  for (const f of form.fields) byName.set(f.name.toLowerCase(), f);
  for (const f of form.fields) {
    if (f.label && !byName.has(f.label.toLowerCase())) byName.set(f.label.toLowerCase(), f);
  }
  const names = header.map((h) => h.trim());
  const lower = names.map((h) => h.toLowerCase());
  const dup = lower.find((h, i) => h && lower.indexOf(h) !== i);
  if (dup !== undefined) throw errors.badRequest(`The header names column '${dup}' twice.`);
  const exact = new Set(form.fields.map((f) => f.name));
  const fieldOf = (i: number) =>
    form.fields.find((f) => f.name === names[i]) ??
      (exact.has(names[i]) ? undefined : byName.get(lower[i]));
  const time = spec.time.find((t) => lower.some((h, i) => h === t && !fieldOf(i))) ?? null;
  const m: Mapping = { time: null, fields: [], metadata: [], status: null, dropped: [] };
  const taken = new Set<string>();
  names.forEach((column, i) => {
    const field = fieldOf(i);
    if (field && !isFileType(field.type) && !taken.has(field.name)) {
      taken.add(field.name);
      m.fields.push({ column, field: field.name });
    } else if (lower[i] === time) m.time = column;
    else if (spec.status && lower[i] === spec.status.column) m.status = column;
    else if (lower[i] in spec.meta) m.metadata.push({ column, key: spec.meta[lower[i]] });
    else if (spec.drop.includes(lower[i]) || column === "") m.dropped.push(column);
    else m.metadata.push({ column, key: column });
  });
  return m;
}

/**
 * Reads a whole import file for `form`: the mapping and every row, good or bad. A file
 * without a header, or without a time column, is a 400.
 */
export function readImport(
  secret: Uint8Array,
  form: Form,
  format: ImportFormat,
  text: string,
  now: number,
): ParsedImport {
  const records = csvRecords(text);
  if (!records.length) throw errors.badRequest("The file is empty: it needs a header row.");
  const header = records[0].cells;
  const mapping = mapHeader(form, format, header);
  if (!mapping.time) {
    throw errors.badRequest(
      `No time column: a ${format} file names one of ${FORMATS[format].time.join(", ")}.`,
    );
  }
  const seen = new Map<string, number>();
  const rows: ImportRow[] = [];
  const bad: BadRow[] = [];
  for (const rec of records.slice(1)) {
    const r = readRow(form, format, mapping, header, rec, now);
    if ("error" in r) {
      bad.push({ line: rec.line, error: r.error });
      continue;
    }
    // The row's content by column (order-free), and its repeat count within the file.
    const content = JSON.stringify(header.map((h, i) => [h.trim(), rec.cells[i] ?? ""]).sort());
    const n = (seen.get(content) ?? 0) + 1;
    seen.set(content, n);
    const digest = hmacSha256Hex(secret, `import:${form.id}:${format}:${content}#${n}`);
    rows.push({ ...r, line: rec.line, digest });
  }
  return { mapping, rows, bad };
}

function readRow(
  form: Form,
  format: ImportFormat,
  m: Mapping,
  header: string[],
  rec: Record_,
  now: number,
): Omit<ImportRow, "line" | "digest"> | BadRow {
  const { cells, line } = rec;
  if (cells.length !== header.length) {
    return { line, error: `${cells.length} cells where the header has ${header.length}` };
  }
  const cell = (column: string) => cells[header.findIndex((h) => h.trim() === column)] ?? "";
  const created = parseTime(cell(m.time!));
  if (!created) return { line, error: `'${m.time}' is not a time: '${cell(m.time!)}'` };
  if (Date.parse(created) > now + FUTURE_SLACK_MS) {
    return { line, error: `'${m.time}' is in the future` };
  }
  // Submission ids carry their time from 1970 on (ULID), so an earlier row cannot be kept.
  if (Date.parse(created) < 0) {
    return { line, error: `'${m.time}' is before 1970: '${cell(m.time!)}'` };
  }
  const fields: Record<string, unknown> = {};
  for (const { column, field } of m.fields) {
    const text = cell(column);
    if (text === "") continue;
    const c = coerce(form.fields.find((f) => f.name === field)!, text);
    if ("error" in c) return { line, error: c.error };
    fields[field] = c.value;
  }
  const metadata: Record<string, unknown> = { imported_from: format };
  const signals: SubmissionSignals = {};
  const spec = FORMATS[format];
  for (const { column, key } of m.metadata) {
    const text = cell(column);
    if (text === "") continue;
    if (key === "ip" || key === "user_agent") {
      signals[key] = text.trim().slice(0, 512);
      continue;
    }
    if (spec.jsonMeta && column.toLowerCase() === spec.jsonMeta) {
      const obj = jsonObject(text);
      if (obj) {
        Object.assign(metadata, obj, { imported_from: format });
        continue;
      }
    }
    metadata[key] = text;
  }
  const status = (m.status && spec.status?.read(cell(m.status))) || "completed";
  const size = new TextEncoder().encode(JSON.stringify({ fields, metadata })).length;
  if (size > MAX_STORED_BYTES) {
    return { line, error: `the row holds ${size} bytes (60 KiB at most)` };
  }
  return { created_at: created, fields, metadata, status, signals };
}

function jsonObject(text: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(text);
    return v && typeof v === "object" && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}
