/**
 * A submit button that shows the request is under way: once its form really submits
 * (after the browser's own validation passed), it is disabled and says so, which also
 * stops double submits. Without JavaScript it is a plain submit button.
 * @module
 */
import { useEffect, useRef, useState } from "preact/hooks";

/** Props: the label, the label while busy, and the button's class. */
export interface SubmitButtonProps {
  label: string;
  busyLabel: string;
  variant?: string;
  [key: string]: unknown;
}

/** The submit button island. */
export default function SubmitButton({ label, busyLabel, variant = "" }: SubmitButtonProps) {
  const ref = useRef<HTMLButtonElement>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    const form = ref.current?.form;
    if (!form) return;
    const onSubmit = () => setTimeout(() => setBusy(true), 0);
    // Coming back with the browser's back button restores the page as it was left.
    const onShow = () => setBusy(false);
    form.addEventListener("submit", onSubmit);
    globalThis.addEventListener("pageshow", onShow);
    return () => {
      form.removeEventListener("submit", onSubmit);
      globalThis.removeEventListener("pageshow", onShow);
    };
  }, []);
  return (
    <button
      ref={ref}
      type="submit"
      class={variant}
      disabled={busy}
      aria-busy={busy ? "true" : "false"}
    >
      {busy ? busyLabel : label}
    </button>
  );
}
