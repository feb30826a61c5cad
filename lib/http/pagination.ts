/**
 * List paging shared by the Server Data API lists (CONTRACT "Lists"): query parsing
 * with zod and the `pagination` object.
 * @module
 */
import { z } from "zod";
import { validationError } from "./validation.ts";

/** Highest page accepted; deeper pages of real data are better reached by filters. */
export const MAX_PAGE = 100_000;

/** `page` and `limit` as query strings: page >= 1, limit 1..100 (default 20). */
export const pageQuerySchema = z.object({
  page: z.coerce.number().int().min(1).max(MAX_PAGE).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

/** The `pagination` object of every list response. */
export interface Pagination {
  page: number;
  limit: number;
  total: number;
  total_pages: number;
  has_more: boolean;
}

/** Builds `pagination` for `total` items; `total_pages` is 0 for an empty list. */
export function pagination(page: number, limit: number, total: number): Pagination {
  const totalPages = Math.ceil(total / limit);
  return { page, limit, total, total_pages: totalPages, has_more: page < totalPages };
}

/**
 * Parses query parameters with a zod schema (admin pages; API routes declare theirs), the
 * first problem a 400 naming the parameter. Unknown parameters are ignored.
 */
export function parseQuery<S extends z.ZodType>(
  schema: S,
  query: Record<string, string>,
): z.output<S> {
  const parsed = schema.safeParse(query);
  if (!parsed.success) throw validationError(parsed.error, "query");
  return parsed.data;
}
