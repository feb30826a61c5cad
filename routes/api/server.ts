/**
 * The Server Data API (SPEC part 4), mounted at `/api/v1/server`. Every route takes a
 * secret key: the workspace and the data mode (live/test) come from the key, never from
 * the client. Routes stay thin; the queries live in lib/.
 * @module
 */
import { type Context, Hono } from "hono";
import { formAnalytics } from "@/lib/forms/analytics.ts";
import { mediaType, parseJsonObject, readBody } from "@/lib/http/body.ts";
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { formListQuerySchema, listForms, requireOwnForm } from "@/lib/forms/query.ts";
import { formView } from "@/lib/forms/forms.ts";
import { parseQuery } from "@/lib/http/pagination.ts";
import { deleteSubmissions, parseDeleteBody } from "@/lib/submissions/delete.ts";
import {
  listSubmissions,
  requireSubmission,
  submissionListQuerySchema,
  submissionView,
} from "@/lib/submissions/query.ts";
import { signFileDownload } from "@/lib/uploads/downloads.ts";
import { auditDelete, keyAuth, type ServerEnv } from "./_key_auth.ts";

/** The Server Data API sub-app, mounted at `/api/v1/server`. */
export function serverApi(deps: Deps): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();
  const read = (route: string) => keyAuth(deps, { scope: "read", route });
  /** The key's own form or the one 404 (the workspace comes from the key). */
  const ownForm = (c: Context<ServerEnv>) =>
    requireOwnForm(deps, c.get("auth").workspace.id, c.req.param("id") ?? "");

  app.get("/forms", read("server_forms"), async (c) => {
    const q = parseQuery(formListQuerySchema, c.req.query());
    return c.json(await listForms(deps, c.get("auth").workspace.id, q));
  });

  app.get("/forms/:id", read("server_form"), async (c) => {
    return c.json({ form: formView(await ownForm(c)) });
  });

  app.get("/forms/:id/submissions", read("server_submissions"), async (c) => {
    const form = await ownForm(c);
    const q = parseQuery(submissionListQuerySchema, c.req.query());
    return c.json(await listSubmissions(deps, form, c.get("auth").mode, q));
  });

  app.get("/forms/:id/submissions/:sid", read("server_submission"), async (c) => {
    const form = await ownForm(c);
    const s = await requireSubmission(deps, form, c.get("auth").mode, c.req.param("sid"));
    return c.json({ submission: submissionView(s) });
  });

  app.delete(
    "/forms/:id/submissions",
    keyAuth(deps, { scope: "admin", route: "server_delete" }),
    async (c) => {
      const form = await ownForm(c);
      const type = mediaType(c.req.header("content-type"));
      if (type && type !== "application/json") {
        throw errors.unsupportedMediaType(["application/json"]);
      }
      const ids = parseDeleteBody(parseJsonObject(await readBody(c.req.raw)));
      const result = await deleteSubmissions(deps, form, c.get("auth").mode, ids, { notify: true });
      await auditDelete(deps, c, form.id, result.deleted);
      return c.json(result);
    },
  );

  app.get("/forms/:id/analytics", read("server_analytics"), async (c) => {
    const form = await ownForm(c);
    const { workspace, mode } = c.get("auth");
    return c.json({ analytics: await formAnalytics(deps, form, workspace, mode) });
  });

  app.get("/forms/:id/files/download", read("server_download"), async (c) => {
    const form = await ownForm(c);
    c.header("Cache-Control", "no-store");
    return c.json(await signFileDownload(deps, c.get("auth"), form.id, c.req.query("path")));
  });

  return app;
}
