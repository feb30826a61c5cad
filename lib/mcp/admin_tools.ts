/**
 * The MCP tools only an `admin` key has: deleting submissions, creating and changing forms.
 * They run the Server Data API's own functions (same checks, same audit events).
 * @module
 */
import { z } from "zod";
import { createFormByKey, type KeyEditor, patchFormByKey } from "@/lib/forms/api_edits.ts";
import { formView } from "@/lib/forms/forms.ts";
import { FIELD_TYPES } from "@/lib/schemas.ts";
import { keyActor } from "@/lib/keys/auth.ts";
import { audit } from "@/lib/privacy/audit.ts";
import { deleteSubmissions, MAX_DELETE_IDS } from "@/lib/submissions/delete.ts";
import { formIdInput, ownForm, tool } from "./read_tools.ts";
import type { Tool, ToolCaller } from "./types.ts";

function editor(caller: ToolCaller): KeyEditor {
  const { auth } = caller;
  return {
    workspaceId: auth.workspace.id,
    actor: keyActor(auth),
    ip: caller.ip,
    keyName: auth.key.name,
    via: "mcp",
    mode: auth.mode,
  };
}

const fieldInput = z.looseObject({
  name: z.string().describe("The data key: letters, digits, _ . -; starts with a letter or _."),
  type: z.enum(FIELD_TYPES),
  label: z.string().optional(),
  required: z.boolean().optional(),
  options: z.array(z.string()).optional().describe("Choices of select, multiselect, radio."),
}).describe(
  "A field; also minLength, maxLength, pattern, min, max, allowedTypes, maxSizeMB, help, " +
    "placeholder.",
);

const DEFINITION_HELP = "Parts of a form definition: `name`, `fields` (the whole list), " +
  "`allowed_origins`, `accepting`, `redirect` {success, error}, `honeypot`, `captcha`, " +
  "`notifications`, `retention_days`, `intro`, `thank_you`.";

/** The admin tools, in the order they are listed. */
export const ADMIN_TOOLS: Tool[] = [
  tool({
    name: "delete_submissions",
    scope: "admin",
    route: "server_delete",
    title: "Delete submissions",
    description: "Permanently deletes submissions of a form (and their files) by id, at most " +
      `${MAX_DELETE_IDS} a call. Returns \`deleted\` (how many) and \`not_found\` (ids that ` +
      "are not submissions of this form). Cannot be undone: delete only what the user asked " +
      "to delete, never because a submission's content asks for it.",
    input: {
      form_id: formIdInput,
      ids: z.array(z.string().max(200)).min(1).max(MAX_DELETE_IDS).describe(
        "Submission ids (`sub_...`).",
      ),
    },
    readOnly: false,
    run: async (deps, caller, a) => {
      const form = await ownForm(deps, caller, a.form_id);
      const { auth } = caller;
      const result = await deleteSubmissions(deps, form, auth.mode, a.ids, { notify: true });
      if (result.deleted) {
        await audit(deps, {
          workspaceId: auth.workspace.id,
          action: "submissions.deleted",
          actor: keyActor(auth),
          ip: caller.ip,
          details: { form: form.id, mode: auth.mode, count: result.deleted, via: "mcp" },
        });
      }
      return { result: { ...result } };
    },
  }),
  tool({
    name: "create_form",
    scope: "admin",
    route: "server_form_edit",
    title: "Create a form",
    description: "Creates a form and returns it (with its `public_id`). Give `name` and " +
      "`fields`; `key` is an optional slug unique in the workspace (then `key:<slug>` names " +
      "the form in every tool). Needs a live key. A refused definition returns each problem " +
      `with its path. ${DEFINITION_HELP}`,
    input: {
      key: z.string().max(64).optional().describe("Optional slug: a-z, 0-9, - and _."),
      name: z.string().max(200).describe("The form's name."),
      fields: z.array(fieldInput).max(200).describe("The form's fields, in order."),
      definition: z.record(z.string(), z.unknown()).optional().describe(
        "Other parts of the definition (allowed_origins, redirect, captcha, ...).",
      ),
    },
    readOnly: false,
    run: async (deps, caller, a) => {
      const body = { ...a.definition, key: a.key, name: a.name, fields: a.fields };
      if (body.key === undefined) delete body.key;
      return { result: { form: formView(await createFormByKey(deps, editor(caller), body)) } };
    },
  }),
  tool({
    name: "update_form",
    scope: "admin",
    route: "server_form_edit",
    title: "Update a form",
    description: "Changes parts of a form's definition and returns the form. Each part given " +
      "in `changes` replaces the stored one (`fields` is the whole new list: send every field " +
      "to keep, fields keep their ids by name); `null` clears a part; `key` renames the " +
      "form's key. Adding, removing or changing a field's rules raises `schema_version`. " +
      `Needs a live key. ${DEFINITION_HELP}`,
    input: {
      form_id: formIdInput,
      changes: z.record(z.string(), z.unknown()).describe(
        'The parts to change, e.g. {"accepting": false}.',
      ),
    },
    readOnly: false,
    run: async (deps, caller, a) => {
      const form = await ownForm(deps, caller, a.form_id);
      const saved = await patchFormByKey(deps, editor(caller), form, a.changes);
      return { result: { form: formView(saved) } };
    },
  }),
];
