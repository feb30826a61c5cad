/**
 * Moving through a stepped hosted form: which step is current (a step hidden by a change
 * of answers gives way to the next one shown), Next (after the step's check), Back, and
 * showing the step that holds a field with an error. Values stay as the visitor moves:
 * the steps are sections of the one form.
 * @module
 */
import { useState } from "preact/hooks";
import type { PageLogic } from "./logic.ts";
import { visibleSteps } from "./steps.tsx";
import type { HostedStep } from "./types.ts";

/** The first step (0-based) holding one of `names`; 0 when none does. */
export function firstStepOf(steps: HostedStep[], names: string[]): number {
  const i = steps.findIndex((s) => s.fields.some((n) => names.includes(n)));
  return i < 0 ? 0 : i;
}

/** What navigation needs of the page. */
export interface NavOptions {
  steps: HostedStep[];
  /** Fields in error when the page was rendered: their step is shown first. */
  initialErrors: string[];
  logic: PageLogic;
  /** Hydrated: before, the page is the no-JS page with every step shown. */
  live: boolean;
  /** Checks a step (0-based) before Next; true when it may be left. */
  check: (step: number) => Promise<boolean>;
  /** Called on each move to a step (0-based). */
  onMove: (step: number) => void;
}

/** The current step and the moves between steps. */
export function useStepNav(o: NavOptions) {
  const [at, setAt] = useState(() => firstStepOf(o.steps, o.initialErrors));
  const [checking, setChecking] = useState(false);
  const stepped = o.live && o.steps.length > 0;
  const order = visibleSteps(o.logic.steps);
  const current = order.includes(at) ? at : order.find((i) => i > at) ?? order.at(-1) ?? 0;
  const position = order.indexOf(current) + 1;

  function go(step: number) {
    setAt(step);
    o.onMove(step);
    requestAnimationFrame(() => {
      const h = document.getElementById(`step-${step}-title`);
      h?.focus();
      h?.scrollIntoView?.({ block: "nearest" });
    });
  }

  /** Checks the current step, then moves to the next one shown. */
  async function next() {
    if (checking) return;
    setChecking(true);
    const ok = await o.check(current);
    setChecking(false);
    const later = order.find((i) => i > current);
    if (ok && later !== undefined) go(later);
  }

  function back() {
    const earlier = order.filter((i) => i < current).at(-1);
    if (earlier !== undefined) go(earlier);
  }

  /** Shows the step holding the first of `names` (when it is shown). */
  function reveal(names: string[]) {
    if (!o.steps.length) return;
    const step = firstStepOf(o.steps, names);
    if (order.includes(step)) setAt(step);
  }

  return {
    /** Shows step `step` (0-based) without a check (a resumed draft's step). */
    show: setAt,
    stepped,
    current,
    position,
    total: order.length,
    /** Whether the current step is the last one shown. */
    last: position >= order.length,
    checking,
    next,
    back,
    reveal,
  };
}
