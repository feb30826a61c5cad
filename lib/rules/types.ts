/**
 * The shapes the rules module reads and answers. Structural, so a stored form
 * (lib/schemas.ts), the public schema a browser fetches and the client library's copy all
 * fit without conversion.
 * @module
 */
import type { MessageId } from "./messages_en.ts";

/** A JSON Logic expression (jsonlogic.com): a literal, an array, or `{operator: args}`. */
export type Expression = unknown;

/** How values arrive: JSON keeps types; form posts send strings and are coerced. */
export type ValueSource = "json" | "form";

/** The parts of a field the rules read. */
export interface RuleField {
  name: string;
  type: string;
  id?: string;
  label?: string;
  required?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  min?: number | string;
  max?: number | string;
  options?: readonly string[];
  allowedTypes?: readonly string[];
  maxSizeMB?: number;
  /** Shown (and so required and stored) only while this expression is truthy. */
  when?: Expression;
  /** The field's value, computed from the other fields (a sent value is ignored). */
  compute?: Expression;
  /** The value used when the data does not hold the field at all. */
  default?: unknown;
}

/** One step of a multi-step form: its title, its fields by name, and an optional condition. */
export interface RuleStep {
  title: string;
  fields: readonly string[];
  when?: Expression;
}

/** The parts of a form the rules read. `id`, `schema_version` and `updated_at` key the cache. */
export interface RuleForm {
  id?: string;
  schema_version?: number;
  updated_at?: string;
  fields: readonly RuleField[];
  honeypot?: string | null;
  steps?: readonly RuleStep[] | null;
  default_language?: string;
  translations?: Translations | null;
}

/** Texts of one language (CONTRACT "Form logic and languages"): option values never change. */
export interface LanguageTexts {
  form?: { title?: string; submit?: string; success?: string };
  fields?: Record<
    string,
    { label?: string; help?: string; placeholder?: string; options?: Record<string, string> }
  >;
  /** Step titles: the title in the default language to its text in this one. */
  steps?: Record<string, string>;
}

/** Texts per language code (`de`, `pt-BR`, ...). */
export type Translations = Record<string, LanguageTexts>;

/**
 * One problem with the data: SPEC part 7's `{field, fieldId, message, type}`, plus what
 * its message is built from (`messageId`, `params`; never sent in a 422), so a page can
 * show it in another language.
 */
export interface Issue {
  field: string;
  fieldId: string;
  message: string;
  type: string;
  messageId?: MessageId;
  params?: Record<string, string | number>;
}

/** A file about to be uploaded, as the client sees it before sending. */
export interface FileFacts {
  type: string;
  size: number;
  name?: string;
}
