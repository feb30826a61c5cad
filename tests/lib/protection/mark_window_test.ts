import assert from "node:assert/strict";
import {
  CONTEXT_SIZE,
  MarkWindow,
  type NumberedMark,
  type SubmissionMark,
} from "@/lib/protection/score_context.ts";
import { RECENT_WINDOW_MS } from "@/lib/protection/score.ts";
import { rng } from "@/bench/soak/bad_util.ts";

/** The context as a walk over the last CONTEXT_SIZE earlier marks defines it. */
function walked(mark: SubmissionMark, earlier: NumberedMark[]) {
  let recent = 0;
  let duplicate = false;
  for (const o of earlier.slice(-CONTEXT_SIZE)) {
    if (o.at <= mark.at - RECENT_WINDOW_MS) continue;
    if (mark.who && o.who === mark.who) recent++;
    if (o.digest === mark.digest) duplicate = true;
  }
  return { recent, duplicate };
}

Deno.test("MarkWindow gives the context a walk of the last marks gives, as marks are added, settled and reverted", () => {
  for (let seed = 1; seed <= 40; seed++) {
    const next = rng(seed);
    const pick = <T>(xs: T[]) => xs[Math.floor(next() * xs.length)];
    let at = 1_700_000_000_000;
    let number = 0;
    const mark = (): NumberedMark => {
      // Mostly seconds apart, now and then past the window, sometimes a little back in time.
      at += pick([1_000, 5_000, 60_000, RECENT_WINDOW_MS + 1, -2_000]);
      return {
        id: `sub_${++number}`,
        who: pick(["", "", "a", "b", "c", "d"]),
        digest: pick(["d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8"]),
        at,
        number,
      };
    };
    let all = Array.from({ length: Math.floor(next() * 150) }, mark);
    const window = new MarkWindow(all);
    let settled = all.length;
    for (let i = 0; i < 400; i++) {
      const m = mark();
      assert.deepEqual(window.contextOf(m), walked(m, all), `seed ${seed}, mark ${m.number}`);
      window.push(m);
      all.push(m);
      assert.deepEqual(window.kept, all.slice(-CONTEXT_SIZE));
      // Now and then a commit succeeds (its marks stay) or fails (its marks go).
      const r = next();
      if (r < 0.1) {
        window.settle();
        settled = all.length;
      } else if (r < 0.15) {
        window.revert();
        all = all.slice(0, settled);
        assert.deepEqual(window.kept, all.slice(-CONTEXT_SIZE));
      }
    }
  }
});

Deno.test("MarkWindow counts a sender's marks and finds equal values only in the window", () => {
  const t = 1_700_000_000_000;
  const m = (n: number, who: string, digest: string, at: number): NumberedMark => ({
    id: `sub_${n}`,
    who,
    digest,
    at,
    number: n,
  });
  const window = new MarkWindow([
    m(1, "a", "x", t - RECENT_WINDOW_MS), // just outside the window
    m(2, "a", "y", t - 1_000),
    m(3, "b", "z", t - 500),
    m(4, "a", "z", t - 100),
  ]);
  assert.deepEqual(window.contextOf({ id: "n", who: "a", digest: "x", at: t }), {
    recent: 2,
    duplicate: false,
  });
  assert.deepEqual(window.contextOf({ id: "n", who: "", digest: "z", at: t }), {
    recent: 0,
    duplicate: true,
  });
  // Marks older than the last CONTEXT_SIZE no longer count.
  for (let n = 5; n < 5 + CONTEXT_SIZE; n++) window.push(m(n, "c", `v${n}`, t - 50));
  assert.deepEqual(window.contextOf({ id: "n", who: "a", digest: "z", at: t }), {
    recent: 0,
    duplicate: false,
  });
});
