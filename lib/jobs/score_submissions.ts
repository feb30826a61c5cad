/**
 * Follow-up of a committed batch of submissions: spam scoring (the protection layer
 * fills in the signals). Idempotent: a submission already scored is left alone.
 * @module
 */
import type { Deps } from "../deps.ts";
import type { Job } from "../queue.ts";

/** Scores each submission of the batch. */
export async function scoreSubmissions(
  _deps: Deps,
  _job: Extract<Job, { type: "score_submissions" }>,
): Promise<void> {
  // Scoring lands with the protection layer; stored status stays as submitted.
}
