/**
 * `fw.events`: the event feed (`GET /api/v1/server/events`), every event a webhook could
 * carry in commit order. Store the `next_cursor` of each page you have processed and pass it
 * back as `after`: you see every event at least once, across restarts.
 * @module
 */
import type { FeedEvent, FeedPage, FeedQuery } from "../types.ts";
import type { Caller } from "./resources.ts";

/** `fw.events`. */
export function feedApi(call: Caller) {
  const page = ({ types, ...query }: FeedQuery = {}) =>
    call<FeedPage>({
      path: "/api/v1/server/events",
      query: { ...query, types: types?.length ? types.join(",") : undefined },
    });
  /** Every page from `after` up to now (the last one has `has_more` false). */
  async function* pages(query: FeedQuery = {}): AsyncGenerator<FeedPage> {
    let after = query.after;
    for (;;) {
      const p = await page({ ...query, after });
      yield p;
      if (!p.has_more) return;
      after = p.next_cursor;
    }
  }
  /** Every event from `after` up to now. */
  async function* list(query: FeedQuery = {}): AsyncGenerator<FeedEvent> {
    for await (const p of pages(query)) yield* p.events;
  }
  return { page, pages, list };
}
