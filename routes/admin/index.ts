/**
 * `/admin`: the forms list is the home page.
 * @module
 */
import { allow, defineFor } from "./_access.ts";

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.signedIn();
const define = defineFor(access);

/** Redirects to the forms. */
export const handler = define.handlers({
  GET(ctx) {
    return ctx.c.redirect("/admin/forms", 303);
  },
});
