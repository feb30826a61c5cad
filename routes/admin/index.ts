/**
 * `/admin`: the forms list is the home page.
 * @module
 */
import { define } from "./_page.ts";

/** Redirects to the forms. */
export const handler = define.handlers({
  GET(ctx) {
    return ctx.c.redirect("/admin/forms", 303);
  },
});
