/**
 * JSON export of a form's submissions (the list page's filters), streamed as one array of
 * the API's submission objects, newest first (export_stream.ts walks the index).
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import type { Mode } from "@/lib/kv/keys.ts";
import type { Form } from "@/lib/schemas.ts";
import { type ExportFilter, exportStream } from "./export_stream.ts";
import { submissionView } from "./query.ts";

/** The export as a byte stream: `[`, one API submission object per line, `]`. */
export function submissionsJson(
  deps: Pick<Deps, "kv" | "now">,
  form: Form,
  mode: Mode,
  filter: ExportFilter,
): ReadableStream<Uint8Array> {
  return exportStream(deps, form.id, mode, filter, {
    head: "[",
    row: (s, first) => (first ? "\n" : ",\n") + JSON.stringify(submissionView(s)),
    tail: "]\n",
  });
}
