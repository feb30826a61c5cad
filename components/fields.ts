/**
 * Pure field-display helpers shared by islands (browser) and lib (server-side HTML, e.g.
 * the embed snippet). `components/` imports only types from lib, so both sides may use it.
 * @module
 */
import type { Field } from "@/lib/schemas.ts";

/** File-like field types (mirrors lib/schemas.ts; islands import only types from lib). */
export const FILE_LIKE = ["file", "image", "signature", "video", "audio"];

/** Whether a field takes a file. */
export function isFileField(f: Pick<Field, "type">): boolean {
  return FILE_LIKE.includes(f.type);
}

/** True while rendering on the server: initial values are written only there. */
export const SSR = typeof document === "undefined";

/** The DOM id of a field's control, its error and its help text. */
export function ids(f: Pick<Field, "id">): { control: string; error: string; help: string } {
  const base = `f-${f.id}`;
  return { control: base, error: `${base}-error`, help: `${base}-help` };
}

/** The HTML `type` of a text-like field. */
export function inputTypeOf(
  f: Pick<Field, "type">,
): "email" | "url" | "tel" | "number" | "date" | "datetime-local" | "text" {
  switch (f.type) {
    case "email":
    case "url":
    case "tel":
    case "number":
    case "date":
      return f.type;
    case "integer":
      return "number";
    case "datetime":
      return "datetime-local";
    default:
      return "text";
  }
}

/** The `accept` attribute of a file-like field. */
export function acceptFor(f: Pick<Field, "type" | "allowedTypes">): string | undefined {
  if (f.allowedTypes?.length) return f.allowedTypes.join(",");
  const byType: Record<string, string> = {
    image: "image/*",
    signature: "image/*",
    video: "video/*",
    audio: "audio/*",
  };
  return byType[f.type];
}

/**
 * A human hint for a file field: "PNG, PDF or plain text, up to 2 MB." (empty when the
 * field sets neither types nor a size).
 */
export function fileHint(f: Pick<Field, "allowedTypes" | "maxSizeMB">): string {
  const names = [...new Set((f.allowedTypes ?? []).map(typeName))];
  const kinds = names.length > 1
    ? `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`
    : names[0] ?? "";
  const size = f.maxSizeMB ? `up to ${f.maxSizeMB} MB` : "";
  const text = kinds && size ? `${kinds}, ${size}` : kinds || (size && `Files ${size}`);
  return text ? `${text}.` : "";
}

/**
 * The help line of a file field: the owner's help text when there is one (it usually names
 * the types already; both would say it twice), else {@linkcode fileHint}.
 */
export function fileHelp(f: Pick<Field, "help" | "allowedTypes" | "maxSizeMB">): string {
  return f.help?.trim() ? f.help : fileHint(f);
}

/** Names people know for common types; others are derived from the MIME subtype. */
const TYPE_NAMES: Record<string, string> = {
  "text/plain": "plain text",
  "text/csv": "CSV",
  "image/jpeg": "JPEG",
  "image/svg+xml": "SVG",
  "application/msword": "Word",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "Word",
  "application/vnd.ms-excel": "Excel",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "Excel",
  "application/zip": "ZIP",
  "audio/mpeg": "MP3",
  "video/quicktime": "MOV",
};

/** `application/pdf` reads "PDF", `image/*` reads "any image", `text/plain` "plain text". */
function typeName(mime: string): string {
  const m = mime.toLowerCase();
  if (TYPE_NAMES[m]) return TYPE_NAMES[m];
  const [kind, sub = ""] = m.split("/");
  if (sub === "*") return `any ${kind}`;
  return sub.replace(/^(x-|vnd\.)/, "").split(/[.+-]/)[0].toUpperCase();
}

/** The JSON `data` of the form as it stands: typed like the JSON API expects. */
export function collectData(
  formEl: HTMLFormElement,
  fields: Field[],
  honeypot: string | null,
  fileRefs: Record<string, unknown>,
): Record<string, unknown> {
  const fd = new FormData(formEl);
  const data: Record<string, unknown> = {};
  for (const f of fields) {
    if (isFileField(f)) {
      if (fileRefs[f.name]) data[f.name] = fileRefs[f.name];
      continue;
    }
    if (f.type === "multiselect") {
      const all = fd.getAll(f.name).map(String);
      if (all.length) data[f.name] = all;
      continue;
    }
    const raw = fd.get(f.name);
    if (raw === null || typeof raw !== "string" || raw === "") continue;
    if (f.type === "number" || f.type === "integer") {
      const n = Number(raw.trim());
      data[f.name] = raw.trim() !== "" && !Number.isNaN(n) ? n : raw;
    } else if (f.type === "boolean") data[f.name] = true;
    else data[f.name] = raw;
  }
  const hp = honeypot ? fd.get(honeypot) : null;
  if (honeypot && typeof hp === "string" && hp !== "") data[honeypot] = hp;
  return data;
}

/** A byte count in the unit that reads best: "33 B", "1.5 KB", "2 MB" (1 KB = 1024 B). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 1024) return `${Math.max(0, Math.round(bytes))} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let n = bytes / 1024;
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  const shown = n >= 100 || Number.isInteger(n) ? Math.round(n) : Number(n.toFixed(1));
  return `${shown} ${units[i]}`;
}
