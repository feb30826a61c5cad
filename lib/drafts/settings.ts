/**
 * A form's drafts setting (`drafts` in its definition) and the rules of how long a draft
 * lives: `ttl_days` after it was started, never past the form's retention.
 * @module
 */
import { z } from "zod";

/** Days a draft lives when the form does not say. */
export const DEFAULT_DRAFT_TTL_DAYS = 30;
const DAY_MS = 86_400_000;

/** `"drafts": {"enabled", "ttl_days"}` of a form definition (ttl 1..90, default 30). */
export const draftSettingsSchema = z.object({
  enabled: z.boolean(),
  ttl_days: z.number().int().min(1).max(90).default(DEFAULT_DRAFT_TTL_DAYS),
}).strict();

/** A form's drafts setting as stored. */
export type DraftSettings = z.output<typeof draftSettingsSchema>;

/** Whether a form keeps drafts. */
export function draftsEnabled(form: { drafts?: DraftSettings | null }): boolean {
  return form.drafts?.enabled === true;
}

/**
 * When a draft started at `startedAt` (epoch ms) is removed: `ttl_days` later, or sooner
 * when the form keeps its data fewer days (`retention_days`).
 */
export function draftExpiry(
  form: { drafts?: DraftSettings | null; retention_days?: number | null },
  startedAt: number,
): number {
  const ttl = form.drafts?.ttl_days ?? DEFAULT_DRAFT_TTL_DAYS;
  const days = form.retention_days ? Math.min(ttl, form.retention_days) : ttl;
  return startedAt + days * DAY_MS;
}
