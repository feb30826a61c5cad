/**
 * Forms managed through the Server Data API (`admin` scope), mounted at `/api/v1/server`:
 * create a form from a definition (with an optional key) and change any part of one. The
 * checks are the CLI's and the admin editor's; a definition's problems are a `422` listing
 * each one; every change is audited with the key's name.
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Deps } from "@/lib/deps.ts";
import { apiApp, BEARER } from "@/lib/api/app.ts";
import {
  errorResponses,
  formSchema,
  jsonRequest,
  jsonResponse,
  KEY_ERRORS,
  serverFormIdParams,
} from "@/lib/api/schemas.ts";
import {
  createFormByKey,
  definitionError,
  type KeyEditor,
  patchFormByKey,
} from "@/lib/forms/api_edits.ts";
import { formKeySchema } from "@/lib/forms/form_keys.ts";
import { formView } from "@/lib/forms/forms.ts";
import { requireOwnForm } from "@/lib/forms/query.ts";
import { clientIp } from "@/lib/http/http.ts";
import { jsonBody, validationHook } from "@/lib/http/validation.ts";
import { formDefinitionSchema } from "@/lib/schemas.ts";
import { keyActor, keyAuth, type ServerEnv } from "./_key_auth.ts";

const TAG = ["Forms and submissions"];
const EXAMPLE = {
  key: "contact",
  name: "Contact",
  fields: [
    { name: "name", type: "text", required: true, maxLength: 100 },
    { name: "email", type: "email", required: true },
  ],
  allowed_origins: ["https://example.com"],
};

/** A definition as `POST /forms` takes it: the form definition plus its optional key. */
const createBody = formDefinitionSchema.extend({ key: formKeySchema.optional() })
  .openapi("FormCreate");

/** Any part of a definition; `null` clears a part; `key` sets (null removes) the key. */
const patchBody = z.object(
  Object.fromEntries(
    Object.entries(formDefinitionSchema.shape).map(([k, s]) => [k, s.nullable().optional()]),
  ),
).strict().extend({ key: formKeySchema.nullable().optional() }).openapi("FormPatch");

const createFormRoute = createRoute({
  tags: TAG,
  security: BEARER,
  method: "post",
  path: "/forms",
  operationId: "createForm",
  summary: "Create a form",
  description: "Creates a form in the key's workspace from a definition (the same checks as " +
    "the CLI and the admin editor), with an optional `key`: a slug unique in the workspace " +
    "that names the form as `key:<slug>` wherever a public id is taken. Scope `admin`, a live " +
    "key (forms serve live visitors). Audited.",
  request: { body: jsonRequest(createBody, EXAMPLE) },
  responses: {
    201: jsonResponse("The new form.", z.object({ form: formSchema })),
    ...errorResponses(400, 409, 413, 415, 422, ...KEY_ERRORS),
  },
});

const patchFormRoute = createRoute({
  tags: TAG,
  security: BEARER,
  method: "patch",
  path: "/forms/{id}",
  operationId: "updateForm",
  summary: "Update a form",
  description: "Changes any part of a form's definition: a part given replaces the stored " +
    "one (`fields` as a whole; fields keep their ids by name), `null` clears it. " +
    "`schema_version` rises only when what is valid changes. Scope `admin`, a live key. Audited.",
  request: {
    params: serverFormIdParams,
    body: jsonRequest(patchBody, { accepting: false }),
  },
  responses: {
    200: jsonResponse("The form.", z.object({ form: formSchema })),
    ...errorResponses(400, 409, 413, 415, 422, ...KEY_ERRORS),
  },
});

/** The hook of a definition body: its problems are the `422` of a definition. */
// deno-lint-ignore no-explicit-any
const definitionHook: any = (result: any, c: Context): void => {
  if (result.target !== "json" || result.success) return validationHook(result, c);
  validationHook({ ...result, success: true }, c); // nesting and Unicode checks first
  throw definitionError(result.error.issues, result.data);
};

/** The forms management sub-app, mounted at `/api/v1/server`. */
export function serverFormsApi(deps: Deps): OpenAPIHono<ServerEnv> {
  const app = apiApp<ServerEnv>();
  const admin = [keyAuth(deps, { scope: "admin", route: "server_form_edit" }), jsonBody()];
  const editor = (c: Context<ServerEnv>): KeyEditor => {
    const auth = c.get("auth");
    return {
      workspaceId: auth.workspace.id,
      actor: keyActor(auth),
      ip: clientIp(c, deps.config.trustProxy),
      keyName: auth.key.name,
      via: "api",
      mode: auth.mode,
    };
  };

  app.openapi({ ...createFormRoute, middleware: admin }, async (c) => {
    const form = await createFormByKey(deps, editor(c), await c.req.json());
    return c.json({ form: formView(form) }, 201);
  }, definitionHook);

  app.openapi({ ...patchFormRoute, middleware: admin }, async (c) => {
    const form = await requireOwnForm(deps, c.get("auth").workspace.id, c.req.valid("param").id);
    const saved = await patchFormByKey(deps, editor(c), form, await c.req.json());
    return c.json({ form: formView(saved) }, 200);
  }, definitionHook);

  return app;
}
