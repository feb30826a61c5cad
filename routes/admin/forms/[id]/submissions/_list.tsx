/**
 * Parts of the submissions list page: the filter bar, the pager, the query string that keeps
 * the filters in links, the table's value preview.
 * @module
 */
import type { Mode } from "@/lib/kv/keys.ts";
import type { Pagination } from "@/lib/http/pagination.ts";
import { type Form, STATUSES } from "@/lib/schemas.ts";
import {
  type PublicSubmission,
  RANGES,
  type SubmissionListQuery,
} from "@/lib/submissions/query.ts";
import { count, plural } from "@/components/count.ts";

/** The page sizes the list offers (the API allows 1..100). */
export const PAGE_SIZES = [10, 20, 50, 100];

/** The query string of a filter set (for links that keep the filters). */
export function filterQuery(mode: Mode, q: Partial<SubmissionListQuery>, page?: number): string {
  const p = new URLSearchParams();
  if (mode === "test") p.set("mode", "test");
  if (q.status) p.set("status", q.status);
  if (q.search) p.set("search", q.search);
  if (q.range && q.range !== "all") p.set("range", q.range);
  if (page && page > 1) p.set("page", String(page));
  if (q.limit && q.limit !== 20) p.set("limit", String(q.limit));
  const s = p.toString();
  return s ? `?${s}` : "";
}

/** Field values shown in the table: the first three fields, shortened with "…" past 120 characters. */
export function preview(form: Form, s: PublicSubmission): string {
  const text = form.fields.slice(0, 3)
    .map((f) => s.fields[f.name])
    .filter((v) => v !== undefined && v !== "")
    .map((v) => (typeof v === "object" ? JSON.stringify(v) : String(v)))
    .join(" · ");
  return text.length > 120 ? `${text.slice(0, 119).trimEnd()}…` : text;
}

/** The filter bar: status, search, date range, live/test. */
export function Filters({ base, mode, q }: { base: string; mode: Mode; q: SubmissionListQuery }) {
  return (
    <form method="get" action={base} class="filters" role="search">
      <div>
        <label for="f-status">Status</label>
        <select id="f-status" name="status">
          <option value="">All</option>
          {STATUSES.map((s) => <option key={s} value={s} selected={q.status === s}>{s}</option>)}
        </select>
      </div>
      <div class="grow">
        <label for="f-search">Search</label>
        <input
          id="f-search"
          name="search"
          type="search"
          value={q.search ?? ""}
          placeholder="Any field value or submission id"
        />
      </div>
      <div>
        <label for="f-range">Received</label>
        <select id="f-range" name="range">
          {Object.keys(RANGES).map((r) => (
            <option value={r} selected={q.range === r}>
              {r === "all" ? "Any time" : `Last ${r.replace("d", " days")}`}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="f-limit">Per page</label>
        <select id="f-limit" name="limit">
          {PAGE_SIZES.map((n) => <option key={n} value={n} selected={q.limit === n}>{n}</option>)}
        </select>
      </div>
      <div>
        <label for="f-mode">Data</label>
        <select id="f-mode" name="mode">
          <option value="live" selected={mode === "live"}>Live</option>
          <option value="test" selected={mode === "test"}>Test</option>
        </select>
      </div>
      <div>
        <button type="submit" class="secondary">Apply</button>
      </div>
    </form>
  );
}

/** Newer/older links with the page count. */
export function Pager(
  { base, mode, q, pg }: { base: string; mode: Mode; q: SubmissionListQuery; pg: Pagination },
) {
  return (
    <nav class="pager" aria-label="Pages">
      {pg.page > 1
        ? <a href={`${base}${filterQuery(mode, q, pg.page - 1)}`} rel="prev">← Newer</a>
        : <span class="muted">← Newer</span>}
      <span>
        Page {pg.page} of {Math.max(1, pg.total_pages)} · {pg.total.toLocaleString("en")}{" "}
        {q.search ? plural(pg.total, "match", "matches") : "total"}
      </span>
      {pg.has_more
        ? <a href={`${base}${filterQuery(mode, q, pg.page + 1)}`} rel="next">Older →</a>
        : <span class="muted">Older →</span>}
    </nav>
  );
}

/** A page past the last one (`?page=999`): say so and link to the last page. */
export function PastTheEnd(
  { base, mode, q, pg }: { base: string; mode: Mode; q: SubmissionListQuery; pg: Pagination },
) {
  const last = Math.max(1, pg.total_pages);
  return (
    <div class="empty">
      <h2>There is no page {pg.page}</h2>
      <p>
        {count(pg.total, "submission")} {plural(pg.total, "matches", "match")}, on{" "}
        {count(last, "page")}.{" "}
        <a href={`${base}${filterQuery(mode, q, last)}`}>Go to page {last}</a>
      </p>
    </div>
  );
}
