/**
 * Importer test support: the form the samples fit, and where the samples are.
 * @module
 */
import type { FormDefinition } from "@/lib/schemas.ts";

/** The hand-written export samples (one per format), from each service's documented columns. */
export const SAMPLES = new URL("./samples/", import.meta.url).pathname;

/** A contact form whose fields the samples' columns name. */
export const IMPORT_FORM: FormDefinition = {
  name: "Imported contact",
  fields: [
    { id: "fld_name", name: "name", type: "text" },
    { id: "fld_email", name: "email", type: "email" },
    { id: "fld_message", name: "message", type: "textarea" },
    { id: "fld_budget", name: "budget", type: "number" },
    { id: "fld_subscribe", name: "subscribe", type: "boolean" },
  ],
};
