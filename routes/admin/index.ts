/**
 * `/admin`: the forms list is the home page.
 * @module
 */
import type { PageContext } from "./_page.ts";

/** Redirects to the forms. */
export const handler = {
  GET(ctx: PageContext) {
    return ctx.c.redirect("/admin/forms", 303);
  },
};
