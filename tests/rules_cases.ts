/**
 * One table of cases for every consumer of the form rules (lib/rules): the rules module,
 * server submit, `/validate`, the client library's check, the generated types
 * (tests/routes/rules_consumers_test.ts) and the hosted page in Chromium
 * (tests/browser/rules_cases_test.ts). Each case lists the problems (`field:type`), and for valid cases the
 * values the service stores; `typeCheck` says whether its data passes `deno check` as the
 * generated `Data` type (conditions and limits are run-time rules, wrong types and unknown
 * keys are not).
 */
import type { FormDefinition } from "@/lib/schemas.ts";

/** An order form with conditions, a computed total, defaults and a conditional step. */
export const LOGIC_FORM: FormDefinition = {
  name: "Order",
  honeypot: "_gotcha",
  fields: [
    {
      name: "kind",
      label: "You are",
      type: "radio",
      options: ["person", "company"],
      required: true,
    },
    {
      name: "company",
      label: "Company",
      type: "text",
      required: true,
      when: { "==": [{ var: "kind" }, "company"] },
    },
    {
      name: "vat",
      label: "VAT number",
      type: "text",
      pattern: "[A-Z]{2}[0-9]{4,}",
      when: { "!!": { var: "company" } },
    },
    { name: "qty", label: "Quantity", type: "integer", min: 1, default: 1 },
    { name: "price", label: "Unit price", type: "number", default: 10 },
    {
      name: "total",
      label: "Total",
      type: "number",
      max: 1000,
      compute: { "*": [{ var: "qty" }, { var: "price" }] },
    },
    { name: "gift", label: "This is a gift", type: "boolean" },
    { name: "gift_note", label: "Gift note", type: "textarea", required: true, maxLength: 50 },
    { name: "source", type: "hidden", default: "web" },
    { name: "agree", label: "I accept the terms.", type: "boolean", required: true },
  ],
  steps: [
    { title: "You", fields: ["kind", "company", "vat"] },
    { title: "Order", fields: ["qty", "price", "total", "gift", "agree"] },
    { title: "Gift", fields: ["gift_note"], when: { "==": [{ var: "gift" }, true] } },
  ],
};

/** One case: data in, the problems out, what is stored when valid. */
export interface RuleCase {
  name: string;
  data: Record<string, unknown>;
  /** `field:type` of each problem, in the answer's order. */
  errors: string[];
  /** The stored fields, for a valid case. */
  stored?: Record<string, unknown>;
  /** Whether the data type-checks as the generated `Data`. */
  typeCheck: boolean;
}

const DEFAULTS = { qty: 1, price: 10, total: 10, source: "web" };

/** The cases. */
export const RULE_CASES: RuleCase[] = [
  {
    name: "a person with nothing else: defaults and the computed total",
    data: { kind: "person", agree: true },
    errors: [],
    stored: { kind: "person", agree: true, ...DEFAULTS },
    typeCheck: true,
  },
  {
    name: "a hidden field's value is dropped, not an error",
    data: { kind: "person", company: "Acme", vat: "bad", agree: true },
    errors: [],
    stored: { kind: "person", agree: true, ...DEFAULTS },
    typeCheck: true,
  },
  {
    name: "a shown conditional field is required",
    data: { kind: "company", agree: true },
    errors: ["company:required"],
    typeCheck: true,
  },
  {
    name: "a field shown by another conditional field keeps its rules",
    data: { kind: "company", company: "Acme", vat: "x1", agree: true },
    errors: ["vat:pattern"],
    typeCheck: true,
  },
  {
    name: "a company with everything",
    data: { kind: "company", company: "Acme", vat: "DE12345", qty: 3, price: 20, agree: true },
    errors: [],
    stored: {
      kind: "company",
      company: "Acme",
      vat: "DE12345",
      qty: 3,
      price: 20,
      total: 60,
      source: "web",
      agree: true,
    },
    typeCheck: true,
  },
  {
    name: "a sent total is ignored: the service computes it",
    data: { kind: "person", qty: 2, total: 999999, agree: true },
    errors: [],
    stored: { kind: "person", agree: true, ...DEFAULTS, qty: 2, total: 20 },
    typeCheck: true,
  },
  {
    name: "a computed value is checked by its field's rules",
    data: { kind: "person", qty: 200, agree: true },
    errors: ["total:max"],
    typeCheck: true,
  },
  {
    name: "a step whose condition is false hides its fields",
    data: { kind: "person", gift: false, gift_note: "hi", agree: true },
    errors: [],
    stored: { kind: "person", gift: false, agree: true, ...DEFAULTS },
    typeCheck: true,
  },
  {
    name: "a step whose condition holds requires its fields",
    data: { kind: "person", gift: true, agree: true },
    errors: ["gift_note:required"],
    typeCheck: true,
  },
  {
    name: "unknown keys and wrong types",
    data: { kind: "person", agree: true, qty: "3", extra: 1 },
    errors: ["extra:unknown_field", "qty:type"],
    typeCheck: false,
  },
  {
    name: "the terms box must be ticked",
    data: { kind: "person", agree: false },
    errors: ["agree:required"],
    typeCheck: false,
  },
];
