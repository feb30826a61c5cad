/**
 * CSV and JSON exports of the submissions the list page shows (same filters), streamed
 * (served by `export.csv.ts` and `export.json.ts`).
 * CSV file columns hold links to the admin's file page (sign-in required; each click
 * signs a fresh short-lived download), so they stay useful after the export.
 * @module
 */
import { submissionsCsv } from "@/lib/submissions/csv_export.ts";
import { writableWorkspace } from "@/lib/workspaces/suspension.ts";
import { submissionsJson } from "@/lib/submissions/json_export.ts";
import { clientIp } from "@/lib/http/http.ts";
import { audit } from "@/lib/privacy/audit.ts";
import { parseQuery } from "@/lib/http/pagination.ts";
import { submissionListQuerySchema } from "@/lib/submissions/query.ts";
import { allow, defineFor } from "@/routes/admin/_access.ts";

/** Who may export: admins and owners of the form's workspace. */
export const exportAccess = allow.form({ GET: "admin" });
const define = defineFor(exportAccess);

/** The handlers of one format: GET streams `text/csv` or `application/json`. */
export function exportHandlers(format: "csv" | "json") {
  const json = format === "json";
  return define.handlers({
    async GET(ctx) {
      const form = ctx.form;
      const query = Object.fromEntries(
        Object.entries(ctx.c.req.query()).filter(([k, v]) => v !== "" && k !== "page"),
      );
      const q = parseQuery(submissionListQuerySchema, query);
      const mode = query.mode === "test" ? "test" : "live";
      const stem = `${form.name.replace(/[^A-Za-z0-9_-]+/g, "-").slice(0, 60) || "form"}-${mode}`;
      const base = ctx.deps.config.baseUrl.replace(/\/$/, "");
      const fileLink = (s: { id: string }, path: string) =>
        `${base}/admin/forms/${form.id}/file?sub=${s.id}&path=${encodeURIComponent(path)}`;
      // A suspended workspace is read-only: no exports either.
      await writableWorkspace(ctx.deps, form.workspace_id);
      const body = json
        ? submissionsJson(ctx.deps, form, mode, q)
        : submissionsCsv(ctx.deps, form, mode, q, fileLink);
      await audit(ctx.deps, {
        workspaceId: form.workspace_id,
        action: json ? "export.json" : "export.csv",
        actor: `user:${ctx.state.user.email}`,
        ip: clientIp(ctx.c, ctx.deps.config.trustProxy),
        details: { form: form.id, mode },
      });
      return new Response(body, {
        headers: {
          "Content-Type": json ? "application/json; charset=utf-8" : "text/csv; charset=utf-8",
          "Content-Disposition": `attachment; filename="${stem}.${json ? "json" : "csv"}"`,
        },
      });
    },
  });
}
