/**
 * Counts in words with the noun agreeing ("1 start", "2 starts", "0 starts"): the one way
 * pages, islands and messages write a number of things.
 * @module
 */

/** The noun for `n` things: `one` for exactly 1, else `many` (`one` + "s" unless given). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return n === 1 ? one : many;
}

/** `n` and its noun, `n` written with thousands separators: "1 start", "1,204 starts". */
export function count(n: number, one: string, many?: string): string {
  return `${n.toLocaleString("en")} ${plural(n, one, many)}`;
}
