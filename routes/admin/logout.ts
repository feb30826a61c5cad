/**
 * Sign-out: deletes the session server-side and clears the cookie.
 * @module
 */
import { deleteSession, sessionCookie } from "@/lib/admin/sessions.ts";
import { allow, defineFor } from "./_access.ts";

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.signedIn();
const define = defineFor(access);

/** POST only (a link could be triggered by another site). */
export const handler = define.handlers({
  async POST(ctx) {
    await deleteSession(ctx.deps, ctx.state.token);
    ctx.c.header("Set-Cookie", sessionCookie(ctx.deps.config, null));
    return ctx.redirect("/admin/login", "signed_out");
  },
});
