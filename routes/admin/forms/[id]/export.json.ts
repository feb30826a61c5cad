/**
 * The JSON export of the submissions the list page shows (routes/admin/forms/[id]/_export.ts).
 * @module
 */
import { exportAccess, exportHandlers } from "./_export.ts";

/** Admins and owners of the form's workspace. */
export const access = exportAccess;

/** GET streams the file. */
export const handler = exportHandlers("json");
