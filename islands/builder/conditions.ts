/**
 * The condition editor's model: a `when` (JSON Logic) as picked field, operator and value,
 * in an "all"/"any" group whose items are rules or groups one level down, and back. An
 * expression this shape cannot hold (written by hand) is kept as it is and shown as JSON.
 * @module
 */

/** The operators the editor offers, in the words it shows. */
export const OPERATORS = {
  eq: "is",
  ne: "is not",
  gt: "is more than",
  ge: "is at least",
  lt: "is less than",
  le: "is at most",
  contains: "contains",
  filled: "is filled in",
  empty: "is empty",
} as const;
/** An operator of the editor. */
export type Operator = keyof typeof OPERATORS;

/** Operators that take no value. */
export const UNARY: Operator[] = ["filled", "empty"];

/** One comparison: a field, an operator and (unless unary) a value as typed. */
export interface RuleCond {
  kind: "rule";
  field: string;
  op: Operator;
  value: string;
}

/** "all" (and) or "any" (or) of its items. */
export interface GroupCond {
  kind: "group";
  mode: "all" | "any";
  items: (RuleCond | GroupCond)[];
}

/** What the editor knows of the fields a condition may name. */
export interface FieldRef {
  name: string;
  label: string;
  type: string;
  options: string[];
}

const JSON_OPS: Partial<Record<Operator, string>> = {
  eq: "==",
  ne: "!=",
  gt: ">",
  ge: ">=",
  lt: "<",
  le: "<=",
};
const NUMERIC = ["number", "integer"];

/** The operators that make sense for a field's type. */
export function operatorsFor(type: string): Operator[] {
  if (NUMERIC.includes(type)) return ["eq", "ne", "gt", "ge", "lt", "le", "filled", "empty"];
  if (type === "boolean") return ["eq"];
  if (type === "multiselect") return ["contains", "filled", "empty"];
  if (type === "date" || type === "datetime") return ["eq", "ne", "gt", "lt", "filled", "empty"];
  if (["select", "radio"].includes(type)) return ["eq", "ne", "filled", "empty"];
  return ["eq", "ne", "contains", "filled", "empty"];
}

/** A new rule on `field`, with its type's first operator and value. */
export function newRule(field: FieldRef | undefined): RuleCond {
  const type = field?.type ?? "text";
  return {
    kind: "rule",
    field: field?.name ?? "",
    op: operatorsFor(type)[0],
    value: type === "boolean" ? "true" : field?.options[0] ?? "",
  };
}

function typed(value: string, field: FieldRef | undefined): unknown {
  if (field?.type === "boolean") return value === "true";
  if (field && NUMERIC.includes(field.type) && value.trim() !== "" && !isNaN(Number(value))) {
    return Number(value);
  }
  return value;
}

function ruleLogic(r: RuleCond, fields: FieldRef[]): unknown {
  const v = { var: r.field };
  const field = fields.find((f) => f.name === r.field);
  if (r.op === "filled") return { "!!": [v] };
  if (r.op === "empty") return { "!": [v] };
  if (r.op === "contains") return { in: [r.value, v] };
  return { [JSON_OPS[r.op]!]: [v, typed(r.value, field)] };
}

/** The JSON Logic of a condition; a group of one item is that item. */
export function toLogic(c: RuleCond | GroupCond, fields: FieldRef[]): unknown {
  if (c.kind === "rule") return ruleLogic(c, fields);
  if (c.items.length === 1) return toLogic(c.items[0], fields);
  return { [c.mode === "all" ? "and" : "or"]: c.items.map((i) => toLogic(i, fields)) };
}

/** The name a `{"var": name}` (or `{"var": [name, fallback]}`) reads, else null. */
function varName(x: unknown): string | null {
  if (x && typeof x === "object" && !Array.isArray(x)) {
    const v = (x as Record<string, unknown>).var;
    if (typeof v === "string") return v;
    if (Array.isArray(v) && typeof v[0] === "string") return v[0];
  }
  return null;
}

function scalar(x: unknown): string | null {
  if (typeof x === "string") return x;
  if (typeof x === "number" || typeof x === "boolean") return String(x);
  return null;
}

function ruleOf(logic: unknown): RuleCond | null {
  if (!logic || typeof logic !== "object" || Array.isArray(logic)) return null;
  const entries = Object.entries(logic);
  if (entries.length !== 1) return null;
  const [op, raw] = entries[0];
  const args = Array.isArray(raw) ? raw : [raw];
  if ((op === "!!" || op === "!") && args.length === 1 && varName(args[0])) {
    return {
      kind: "rule",
      field: varName(args[0])!,
      op: op === "!!" ? "filled" : "empty",
      value: "",
    };
  }
  if (op === "in" && args.length === 2 && varName(args[1]) && scalar(args[0]) !== null) {
    return { kind: "rule", field: varName(args[1])!, op: "contains", value: scalar(args[0])! };
  }
  const mine = (Object.keys(JSON_OPS) as Operator[]).find((k) => JSON_OPS[k] === op);
  if (mine && args.length === 2 && varName(args[0]) && scalar(args[1]) !== null) {
    return { kind: "rule", field: varName(args[0])!, op: mine, value: scalar(args[1])! };
  }
  return null;
}

function groupOf(logic: unknown, depth: number): GroupCond | null {
  if (!logic || typeof logic !== "object" || Array.isArray(logic)) return null;
  const entries = Object.entries(logic);
  if (entries.length !== 1) return null;
  const [op, args] = entries[0];
  if ((op !== "and" && op !== "or") || !Array.isArray(args) || args.length === 0) return null;
  const items: (RuleCond | GroupCond)[] = [];
  for (const a of args) {
    const item = ruleOf(a) ?? (depth === 0 ? groupOf(a, 1) : null);
    if (!item) return null;
    items.push(item);
  }
  return { kind: "group", mode: op === "and" ? "all" : "any", items };
}

/**
 * The editor's shape of a `when`: always a top-level group (a lone rule becomes a group of
 * one); null when the expression is more than the editor shows (it is then kept as JSON).
 */
export function fromLogic(logic: unknown): GroupCond | null {
  const rule = ruleOf(logic);
  if (rule) return { kind: "group", mode: "all", items: [rule] };
  return groupOf(logic, 0);
}

/** The field names an expression reads (`{"var": name}` anywhere in it). */
export function namesIn(logic: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(logic)) {
    for (const x of logic) namesIn(x, out);
  } else if (logic && typeof logic === "object") {
    const v = varName(logic);
    if (v !== null) out.add(v.split(".")[0]);
    for (const x of Object.values(logic)) namesIn(x, out);
  }
  return out;
}

/** The expression with every `{"var": from}` (and `from.x`) read as `to` instead. */
export function renameVar(logic: unknown, from: string, to: string): unknown {
  if (Array.isArray(logic)) return logic.map((x) => renameVar(x, from, to));
  if (logic && typeof logic === "object") {
    const v = varName(logic);
    if (v !== null && (v === from || v.startsWith(`${from}.`))) {
      const name = to + v.slice(from.length);
      const read = (logic as { var: unknown }).var;
      return { ...logic, var: Array.isArray(read) ? [name, ...read.slice(1)] : name };
    }
    return Object.fromEntries(
      Object.entries(logic).map(([k, x]) => [k, renameVar(x, from, to)]),
    );
  }
  return logic;
}

/** A condition in words for a field card: `Shown when type is company and total is more than 100`. */
export function describe(c: RuleCond | GroupCond, fields: FieldRef[]): string {
  if (c.kind === "rule") {
    const f = fields.find((x) => x.name === c.field);
    const who = f?.label || c.field || "(no field)";
    if (UNARY.includes(c.op)) return `${who} ${OPERATORS[c.op]}`;
    const value = f?.type === "boolean" ? (c.value === "true" ? "checked" : "unchecked") : c.value;
    return f?.type === "boolean" ? `${who} is ${value}` : `${who} ${OPERATORS[c.op]} ${value}`;
  }
  const joined = c.items.map((
    i,
  ) => (i.kind === "group" && i.items.length > 1
    ? `(${describe(i, fields)})`
    : describe(i, fields))
  ).join(c.mode === "all" ? " and " : " or ");
  return joined;
}

/** A `when` in words, or its JSON when the editor cannot show it. */
export function describeLogic(logic: unknown, fields: FieldRef[]): string {
  const g = fromLogic(logic);
  return g ? describe(g, fields) : JSON.stringify(logic);
}
