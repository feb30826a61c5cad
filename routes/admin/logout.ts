/**
 * Sign-out: deletes the session server-side and clears the cookie.
 * @module
 */
import { deleteSession, sessionCookie } from "@/lib/admin/sessions.ts";
import { define } from "./_page.ts";

/** POST only (a link could be triggered by another site). */
export const handler = define.handlers({
  async POST(ctx) {
    await deleteSession(ctx.deps, ctx.state?.token);
    ctx.c.header("Set-Cookie", sessionCookie(ctx.deps.config, null));
    return ctx.redirect("/admin/login", "signed_out");
  },
});
