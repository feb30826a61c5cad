/**
 * The walk every export shares: the form's index newest first, a chunk at a time, the list
 * page's filters applied, each chunk written out before the next is read, so 100,000
 * submissions never sit in memory together.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { keys, type Mode, type StatusBucket } from "@/lib/kv/keys.ts";
import type { Status, Submission } from "@/lib/schemas.ts";
import { readSubmissions } from "./records.ts";
import { indexedId } from "./indexes.ts";
import { RANGES, rangeStartDay } from "./query.ts";
import { holdsTerms } from "@/lib/search/entries.ts";
import { searchTerms } from "@/lib/search/terms.ts";

/** Index entries read per step (bounded memory per step). */
const CHUNK = 200;

/** Which submissions to export (the list page's filters). */
export interface ExportFilter {
  status?: Status;
  search?: string;
  range: keyof typeof RANGES;
}

/** How one export format writes: what comes first, each submission, what comes last. */
export interface ExportFormat {
  head: string;
  row: (s: Submission, first: boolean) => string;
  tail: string;
}

/** A form's submissions in `format` as a byte stream; reads only as the consumer pulls. */
export function exportStream(
  deps: Pick<Deps, "kv" | "now">,
  formId: string,
  mode: Mode,
  filter: ExportFilter,
  format: ExportFormat,
): ReadableStream<Uint8Array> {
  const bucket: StatusBucket = filter.status ?? "all";
  const prefix = bucket === "all"
    ? keys.submissionsByNumber(formId, mode)
    : keys.submissionsByStatus(formId, mode, bucket);
  const fromDay = rangeStartDay(filter.range, deps.now());
  const terms = filter.search?.trim() ? searchTerms(filter.search) : null;
  const iter = deps.kv.list({ prefix }, { reverse: true, batchSize: CHUNK });
  const enc = new TextEncoder();
  let started = false;
  let first = true;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        return controller.enqueue(enc.encode(format.head));
      }
      // Read until some rows pass the filters (or the index ends), then hand them over.
      for (;;) {
        const ids: string[] = [];
        while (ids.length < CHUNK) {
          const next = await iter.next();
          if (next.done) break;
          ids.push(indexedId(next.value.value));
        }
        if (!ids.length) {
          if (format.tail) controller.enqueue(enc.encode(format.tail));
          return controller.close();
        }
        const records = await readSubmissions(deps.kv, formId, ids);
        let out = "";
        for (const s of records) {
          if (!s || (fromDay && s.created_at < fromDay)) continue;
          if (terms && !holdsTerms(s, terms)) continue;
          out += format.row(s, first);
          first = false;
        }
        if (out) return controller.enqueue(enc.encode(out));
      }
    },
  }, { highWaterMark: 1 });
}
