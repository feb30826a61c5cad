/**
 * `formwell.json`, the forms-as-code file: its JSON Schema, made from the definition schema
 * the server checks with (so editors complete and check what the server accepts). The
 * server serves it at `/schemas/formwell.json`; the client package ships the same document.
 * @module
 */
import { z } from "zod";
import { formDefinitionSchema } from "@/lib/schemas.ts";
import { formKeySchema } from "./form_keys.ts";

/** Where a server serves the schema. */
export const FORMWELL_SCHEMA_PATH = "/schemas/formwell.json";

const fileSchema = z.object({
  $schema: z.string().optional().describe("This schema's URL, for editors."),
  forms: z.array(
    formDefinitionSchema.extend({
      key: formKeySchema.describe(
        "The form's slug, unique in the workspace; `deploy` matches forms by it.",
      ),
    }),
  ).describe(
    "The forms to deploy; forms on the server that are not here are left alone.",
  ),
}).strict();

/** The JSON Schema (draft 2020-12) of `formwell.json`. */
export function formwellFileJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(fileSchema, {
    io: "input",
    unrepresentable: "any",
  });
  return {
    $schema: schema.$schema,
    title: "formwell.json",
    description: "Formwell forms as code: each form's definition and its key. Apply with " +
      "`formwell deploy --url BASE --api-key KEY`.",
    ...schema,
  };
}
