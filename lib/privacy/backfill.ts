/**
 * Backfill of the email index for submissions stored before it existed: walks one form's
 * records once, ten a checked commit, adding entries (and `email_digests`) to those that
 * have none. Idempotent; safe beside new submissions and deletes (each commit checks the
 * records it changes).
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { keys } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import type { Form, Submission } from "@/lib/schemas.ts";
import { addEmailIndex } from "./email_index.ts";

const PER_COMMIT = 10;

/** Indexes a form's unindexed submissions; returns how many records gained entries. */
export async function backfillEmailIndex(
  deps: Pick<Deps, "kv" | "secret">,
  form: Form,
): Promise<number> {
  let indexed = 0;
  let batch: Deno.KvEntry<Submission>[] = [];
  const flush = async () => {
    indexed += await indexChunk(deps, form, batch.map((e) => e.key));
    batch = [];
  };
  for await (const e of deps.kv.list<Submission>({ prefix: keys.submissions(form.id) })) {
    if (e.value.email_digests !== undefined) continue;
    batch.push(e);
    if (batch.length === PER_COMMIT) await flush();
  }
  if (batch.length) await flush();
  return indexed;
}

/** Indexes up to ten records in one checked commit, re-reading them on conflict. */
async function indexChunk(
  deps: Pick<Deps, "kv" | "secret">,
  form: Form,
  keyList: Deno.KvKey[],
): Promise<number> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const entries = await withKvRetry(() => deps.kv.getMany<Submission[]>(keyList));
    const op = deps.kv.atomic();
    let n = 0;
    for (const e of entries) {
      if (!e.value || e.value.email_digests !== undefined) continue;
      const s: Submission = { ...e.value };
      addEmailIndex(op, deps.secret, form, s);
      s.email_digests ??= [];
      op.check(e).set(e.key, s);
      if (s.email_digests.length) n++;
    }
    const res = await withKvRetry(() => op.commit());
    if (res.ok) return n;
  }
  throw new Error("email index backfill kept conflicting");
}
