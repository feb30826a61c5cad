/**
 * The hosted form's steps: the progress line and bar, and the Back / Next / Send buttons.
 * The steps themselves are sections of the one form, so values stay as the visitor moves.
 * @module
 */
import { uiText } from "@/lib/rules/mod.ts";

/** Indexes of the steps shown, in order. */
export function visibleSteps(shown: boolean[]): number[] {
  return shown.flatMap((on, i) => (on ? [i] : []));
}

/** "Step 2 of 3" and a progress bar. */
export function StepProgress(
  { position, total, lang }: { position: number; total: number; lang: string },
) {
  const label = uiText(lang, "step", { n: position, total });
  return (
    <div class="step-progress">
      <p id="step-progress-label" aria-live="polite">{label}</p>
      <progress max={total} value={position} aria-labelledby="step-progress-label" />
    </div>
  );
}

/** Back (from the second step), and Next until the last step, where Send takes its place. */
export function StepButtons(
  { first, last, busy, checking, submitLabel, lang, onBack, onNext }: {
    first: boolean;
    last: boolean;
    busy: boolean;
    checking: boolean;
    submitLabel: string;
    lang: string;
    onBack: () => void;
    onNext: () => void;
  },
) {
  return (
    <div class="actions">
      {!first && (
        <button type="button" class="secondary" onClick={onBack}>{uiText(lang, "back")}</button>
      )}
      {last
        ? (
          <button type="submit" aria-disabled={busy ? "true" : undefined}>
            {busy ? uiText(lang, "sending") : submitLabel}
          </button>
        )
        : (
          <button type="button" aria-disabled={checking ? "true" : undefined} onClick={onNext}>
            {checking ? uiText(lang, "checking") : uiText(lang, "next")}
          </button>
        )}
      <span class="status" role="status">{busy ? uiText(lang, "sending_status") : ""}</span>
    </div>
  );
}
