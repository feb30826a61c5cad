/**
 * JSON Logic (jsonlogic.com) through `json-logic-js`, limited to the standard operators:
 * which operators an expression may use, which fields it names, and its value for a set
 * of field values. `log` (writes to the console) and `method` (calls methods of values)
 * are not allowed, nor any operator added to the library elsewhere.
 * @module
 */
import jsonLogic from "json-logic-js";
import type { Expression } from "./types.ts";

/** The operators an expression may use: JSON Logic's standard ones, `log` aside. */
export const OPERATORS: ReadonlySet<string> = new Set([
  "var",
  "missing",
  "missing_some",
  "if",
  "?:",
  "==",
  "===",
  "!=",
  "!==",
  "!",
  "!!",
  "or",
  "and",
  ">",
  ">=",
  "<",
  "<=",
  "max",
  "min",
  "+",
  "-",
  "*",
  "/",
  "%",
  "map",
  "reduce",
  "filter",
  "all",
  "none",
  "some",
  "merge",
  "in",
  "cat",
  "substr",
]);

/** Operators whose second argument runs once per item of the first (`var` names the item). */
const SCOPED = new Set(["map", "reduce", "filter", "all", "none", "some"]);
const MAX_DEPTH = 32;
const MAX_NODES = 500;

/** What an expression names and what is wrong with it. */
export interface ExpressionFacts {
  /** Field names read through `var`, `missing` and `missing_some`. */
  references: string[];
  /** Human-readable problems; empty when the expression may be used. */
  problems: string[];
}

/** Reads an expression once: its field references and its problems. */
export function inspectExpression(expr: Expression): ExpressionFacts {
  const references = new Set<string>();
  const problems: string[] = [];
  let nodes = 0;
  const named = (name: unknown, op: string) => {
    if (typeof name === "string" && name !== "") references.add(name);
    else problems.push(`${op} takes a field name (a non-empty string)`);
  };
  const walk = (e: unknown, depth: number, scoped: boolean): void => {
    if (++nodes > MAX_NODES || depth > MAX_DEPTH) {
      if (nodes === MAX_NODES + 1 || depth === MAX_DEPTH + 1) {
        problems.push(`too large (at most ${MAX_NODES} parts, ${MAX_DEPTH} levels deep)`);
      }
      return;
    }
    if (Array.isArray(e)) return e.forEach((x) => walk(x, depth + 1, scoped));
    if (e === null || typeof e !== "object") {
      if (typeof e === "number" && !Number.isFinite(e)) problems.push("a number must be finite");
      return;
    }
    const keys = Object.keys(e);
    if (keys.length !== 1) {
      problems.push(
        `an operation is an object with exactly one operator (found ${
          keys.length ? keys.map((k) => JSON.stringify(k)).join(", ") : "none"
        })`,
      );
      return;
    }
    const op = keys[0];
    if (!OPERATORS.has(op)) {
      problems.push(`unknown operator ${JSON.stringify(op)}`);
      return;
    }
    const raw = (e as Record<string, unknown>)[op];
    const args = Array.isArray(raw) ? raw : [raw];
    if (op === "var") {
      if (scoped) return walk(args.slice(1), depth + 1, scoped);
      if (typeof args[0] === "string" && args[0] !== "") references.add(args[0]);
      else if (typeof args[0] === "number") references.add(String(args[0]));
      else problems.push("var takes a field name (a non-empty string)");
      return walk(args.slice(1), depth + 1, scoped);
    }
    if ((op === "missing" || op === "missing_some") && !scoped) {
      const list = op === "missing_some" ? args[1] : (Array.isArray(args[0]) ? args[0] : args);
      if (op === "missing_some" && typeof args[0] !== "number") {
        problems.push("missing_some takes a count and a list of field names");
      }
      if (!Array.isArray(list)) problems.push(`${op} takes a list of field names`);
      else list.forEach((n) => named(n, op));
      return;
    }
    if (SCOPED.has(op)) {
      walk(args[0], depth + 1, scoped);
      walk(args[1], depth + 1, true);
      return walk(args.slice(2), depth + 1, scoped);
    }
    walk(args, depth + 1, scoped);
  };
  walk(expr, 0, false);
  return { references: [...references], problems };
}

/** JSON Logic's truthiness (an empty list is false). */
export function truthy(v: unknown): boolean {
  return jsonLogic.truthy(v);
}

/** The value of an inspected expression over `data`; a failure inside it gives null. */
export function applyExpression(expr: Expression, data: Record<string, unknown>): unknown {
  try {
    return jsonLogic.apply(expr as Parameters<typeof jsonLogic.apply>[0], data);
  } catch {
    return null;
  }
}

/**
 * An expression ready to run: the fields it reads and its recent results by their values.
 * An expression is a pure function of the fields it reads, so while those hold the same
 * plain values (the common case: a condition on a choice) the result is reused instead of
 * interpreted again.
 */
export interface CompiledExpression {
  expr: Expression;
  /** The fields it reads (`cv` for `cv.sizeBytes`). */
  reads: string[];
  memo: Map<string, unknown>;
}

/** Results kept per expression; past this the memo starts over. */
const MEMO_SIZE = 256;

/** Prepares an inspected expression for {@linkcode runExpression}. */
export function compileExpression(expr: Expression): CompiledExpression {
  const reads = [...new Set(inspectExpression(expr).references.map((r) => r.split(".")[0]))];
  return { expr, reads, memo: new Map() };
}

/** The value of a compiled expression over `scope` (a failure inside it gives null). */
export function runExpression(c: CompiledExpression, scope: Record<string, unknown>): unknown {
  let key = "";
  for (const name of c.reads) {
    const v = scope[name];
    if (typeof v === "string") key += `s${v.length}:${v}|`;
    else if (typeof v === "number") key += Object.is(v, -0) ? "n-0|" : `n${v}|`;
    else if (typeof v === "boolean") key += v ? "t|" : "f|";
    else if (v === undefined) key += "u|";
    else if (v === null) key += "z|";
    else return applyExpression(c.expr, scope); // a list or a file: not kept
  }
  const kept = c.memo.get(key);
  if (kept !== undefined || c.memo.has(key)) return kept;
  const result = applyExpression(c.expr, scope);
  // A list result could be changed by its user: only plain values are shared.
  if (result !== null && typeof result === "object") return result;
  if (c.memo.size >= MEMO_SIZE) c.memo.clear();
  c.memo.set(key, result);
  return result;
}
