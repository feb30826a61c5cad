/**
 * List iterators: every item of a paginated Server Data API list, page after page until
 * `has_more` is false. Lists of newest-first data shift while they are read; an item seen
 * on the page before is not yielded twice.
 * @module
 */
import type { Pagination } from "../types.ts";

/** One page: its items and the list's `pagination`. */
export interface Page<T> {
  items: T[];
  pagination: Pagination;
}

function idOf(item: unknown): unknown {
  const o = item as { id?: unknown; public_id?: unknown };
  return o?.id ?? o?.public_id;
}

/** Yields every item of the pages `load(1)`, `load(2)`, ... */
export async function* paginate<T>(
  load: (page: number) => Promise<Page<T>>,
): AsyncGenerator<T> {
  let before = new Set<unknown>();
  for (let page = 1;; page++) {
    const { items, pagination } = await load(page);
    const ids = new Set(items.map(idOf));
    for (const item of items) if (!before.has(idOf(item))) yield item;
    before = ids;
    if (!pagination.has_more || !items.length) return;
  }
}
