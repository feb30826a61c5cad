/**
 * The soak's own records in the KV it tests (`["soak_probe", what, id]` counters and flags,
 * written by its worker processes and read back by the scenarios), and the KV wrapper that
 * makes every final verdict's commit count its submissions in that same commit.
 * @module
 */
import { keys } from "@/lib/kv/keys.ts";

/** The key of a probe record: `what` happened to job or submission `id`. */
export function probeKey(what: string, id: string): Deno.KvKey {
  return ["soak_probe", what, id];
}

/** The prefix of every probe record named `what`. */
export function probePrefix(what: string): Deno.KvKey {
  return ["soak_probe", what];
}

/** The first part of every verdict key (kv/keys.ts `submissionVerdict`). */
const VERDICTS = keys.submissionVerdict("", "")[0];

/**
 * `kv` whose atomic operations count, in the same commit, every final verdict they store:
 * `probeKey("scored", id)` is summed once per verdict written for submission `id`. Passed to
 * `buildDeps` by a worker process, so the code under test runs unchanged.
 */
export function countingVerdicts(kv: Deno.Kv): Deno.Kv {
  return new Proxy(kv, {
    get(target, name) {
      if (name === "atomic") {
        return () => {
          const op = target.atomic();
          const set = op.set.bind(op);
          op.set = (key, value, options) => {
            if (key[0] === VERDICTS) op.sum(probeKey("scored", String(key[2])), 1n);
            return set(key, value, options);
          };
          return op;
        };
      }
      const value = Reflect.get(target, name, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
