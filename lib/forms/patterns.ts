/**
 * Field `pattern` rules, matched with RE2 (npm re2js): linear time whatever the pattern,
 * so no form owner's pattern can be turned into a catastrophic-backtracking attack by
 * public input. RE2 syntax: no backreferences, no lookaround.
 * @module
 */
import { RE2JS } from "re2js";

const compiled = new Map<string, RE2JS>();
const MAX_CACHED = 1000;

/** Compiles (and caches) a pattern; throws on syntax RE2 does not support. */
function compile(pattern: string): RE2JS {
  let re = compiled.get(pattern);
  if (!re) {
    re = RE2JS.compile(pattern);
    if (compiled.size >= MAX_CACHED) compiled.delete(compiled.keys().next().value!);
    compiled.set(pattern, re);
  }
  return re;
}

/** Why a pattern cannot be used, or null when it can. */
export function patternProblem(pattern: string): string | null {
  try {
    compile(pattern);
    return null;
  } catch (err) {
    return `not a supported regular expression (RE2 syntax: no backreferences or lookaround): ${
      (err as Error).message
    }`;
  }
}

/** Whether the whole of `value` matches `pattern`. */
export function matchesPattern(pattern: string, value: string): boolean {
  return compile(pattern).matches(value);
}
