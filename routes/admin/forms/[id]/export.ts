/**
 * CSV export of the submissions the list page shows (same filters), streamed.
 * @module
 */
import { openSubmissionsCsv } from "@/lib/submissions/csv_export.ts";
import { clientIp } from "@/lib/http/http.ts";
import { audit } from "@/lib/privacy/audit.ts";
import { parseQuery } from "@/lib/http/pagination.ts";
import { submissionListQuerySchema } from "@/lib/submissions/query.ts";
import { define, requireForm } from "@/routes/admin/_page.ts";

/** GET streams `text/csv` as an attachment. */
export const handler = define.handlers({
  async GET(ctx) {
    const form = await requireForm(ctx);
    const query = Object.fromEntries(
      Object.entries(ctx.c.req.query()).filter(([k, v]) => v !== "" && k !== "page"),
    );
    const q = parseQuery(submissionListQuerySchema, query);
    const mode = query.mode === "test" ? "test" : "live";
    const name = `${form.name.replace(/[^A-Za-z0-9_-]+/g, "-").slice(0, 60) || "form"}-${mode}.csv`;
    const body = await openSubmissionsCsv(ctx.deps, form, mode, q);
    await audit(ctx.deps, {
      workspaceId: form.workspace_id,
      action: "export.csv",
      actor: `user:${ctx.state!.user.email}`,
      ip: clientIp(ctx.c, ctx.deps.config.trustProxy),
      details: { form: form.id, mode },
    });
    return new Response(body, {
      headers: {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="${name}"`,
      },
    });
  },
});
