/**
 * JSON export of a form's submissions (the list page's filters), streamed as one array of
 * the API's submission objects, newest first, a chunk at a time like the CSV export.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { keys, type Mode, type StatusBucket } from "@/lib/kv/keys.ts";
import { getManyChunked } from "@/lib/kv/kv.ts";
import type { Form, Submission } from "@/lib/schemas.ts";
import type { ExportFilter } from "./csv_export.ts";
import { indexedId } from "./indexes.ts";
import { matchesSearch, rangeStartDay, submissionView } from "./query.ts";

const CHUNK = 200;

/** The export as a byte stream: `[`, one object per submission, `]`. */
export function submissionsJson(
  deps: Pick<Deps, "kv" | "now">,
  form: Form,
  mode: Mode,
  filter: ExportFilter,
): ReadableStream<Uint8Array> {
  const bucket: StatusBucket = filter.status ?? "all";
  const prefix = bucket === "all"
    ? keys.submissionsByNumber(form.id, mode)
    : keys.submissionsByStatus(form.id, mode, bucket);
  const fromDay = rangeStartDay(filter.range, deps.now());
  const needle = filter.search?.trim().toLowerCase() || null;
  const iter = deps.kv.list({ prefix }, { reverse: true, batchSize: CHUNK });
  const enc = new TextEncoder();
  let first = true;
  let started = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        return controller.enqueue(enc.encode("["));
      }
      for (;;) {
        const ids: string[] = [];
        while (ids.length < CHUNK) {
          const next = await iter.next();
          if (next.done) break;
          ids.push(indexedId(next.value.value));
        }
        if (!ids.length) {
          controller.enqueue(enc.encode("]\n"));
          return controller.close();
        }
        const records = await getManyChunked<Submission>(
          deps.kv,
          ids.map((id) => keys.submission(form.id, id)),
        );
        let out = "";
        for (const { value: s } of records) {
          if (!s || (fromDay && s.created_at < fromDay)) continue;
          if (needle && !matchesSearch(s, needle)) continue;
          out += (first ? "\n" : ",\n") + JSON.stringify(submissionView(s));
          first = false;
        }
        if (out) return controller.enqueue(enc.encode(out));
      }
    },
  }, { highWaterMark: 1 });
}
