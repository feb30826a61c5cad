/**
 * The Formwell release this code is, shown on the admin System page and written into
 * backups.
 * @module
 */

/** Formwell's version (semantic versioning). */
export const FORMWELL_VERSION = "0.3.0";
