/**
 * A submission's draft goes in the commit that stores the submission: the submit body's
 * `draft_id` names it, and the writer's commit removes it with its index entries.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { keys } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import type { Form } from "@/lib/schemas.ts";
import type { CommitPart } from "@/lib/submissions/types.ts";
import { removeDraft } from "./store.ts";
import type { Draft } from "./types.ts";

/**
 * The commit part that removes draft `draftId` of `form` with its submission (none when no
 * draft is named or the id cannot be one). A draft already gone leaves the submit as it is.
 */
export function draftCommitParts(
  deps: Pick<Deps, "kv">,
  form: Form,
  draftId: string | undefined,
): CommitPart[] {
  if (!draftId || !/^drf_[0-9a-z]{26}$/.test(draftId)) return [];
  return [{
    checks: 1,
    apply: async (op) => {
      const entry = await withKvRetry(() => deps.kv.get<Draft>(keys.draft(form.id, draftId)));
      if (!entry.value) return;
      // Checked: a save landing meanwhile makes the commit read the draft again.
      op.check(entry);
      removeDraft(op, entry.value);
    },
  }];
}
