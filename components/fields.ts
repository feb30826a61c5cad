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

/** A human hint for a file field: allowed types and size cap. */
export function fileHint(f: Pick<Field, "allowedTypes" | "maxSizeMB">): string {
  const parts: string[] = [];
  if (f.allowedTypes?.length) parts.push(f.allowedTypes.map(typeName).join(", "));
  if (f.maxSizeMB) parts.push(`up to ${f.maxSizeMB} MB`);
  return parts.join(", ");
}

/** `application/pdf` reads "PDF", `image/*` reads "any image". */
function typeName(mime: string): string {
  const [kind, sub = ""] = mime.split("/");
  if (sub === "*") return `any ${kind}`;
  return sub.replace(/^(x-|vnd\.)/, "").split(/[.+-]/)[0].toUpperCase();
}

/** Whether a browser-reported MIME type matches `image/png` or `image/*` patterns. */
export function typeMatches(type: string, patterns: string[] | undefined): boolean {
  if (!patterns?.length) return true;
  const t = type.toLowerCase();
  return patterns.some((p) => {
    const q = p.toLowerCase();
    return q.endsWith("/*") ? t.startsWith(q.slice(0, -1)) : t === q;
  });
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
