/**
 * A "select all on this page" checkbox for a list of `name="ids"` checkboxes in the same
 * form; it follows them (ticked when all are, mixed when some are).
 * @module
 */
import { useEffect, useRef, useState } from "preact/hooks";

/** Props: the accessible label. */
export interface SelectAllProps {
  label: string;
  [key: string]: unknown;
}

function boxes(el: HTMLElement | null): HTMLInputElement[] {
  const form = el?.closest("form");
  return form
    ? [...form.querySelectorAll<HTMLInputElement>('input[type=checkbox][name="ids"]')]
    : [];
}

/** The select-all island. */
export default function SelectAll({ label }: SelectAllProps) {
  const ref = useRef<HTMLInputElement>(null);
  const [state, setState] = useState<"none" | "some" | "all">("none");
  useEffect(() => {
    const sync = () => {
      const all = boxes(ref.current);
      const ticked = all.filter((b) => b.checked).length;
      setState(ticked === 0 ? "none" : ticked === all.length ? "all" : "some");
    };
    const form = ref.current?.closest("form");
    form?.addEventListener("change", sync);
    sync();
    return () => form?.removeEventListener("change", sync);
  }, []);
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = state === "some";
  }, [state]);
  return (
    <input
      ref={ref}
      type="checkbox"
      aria-label={label}
      checked={state === "all"}
      onChange={(e) => {
        const on = e.currentTarget.checked;
        for (const b of boxes(ref.current)) b.checked = on;
        setState(on ? "all" : "none");
      }}
    />
  );
}
