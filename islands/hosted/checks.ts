/**
 * The hosted form's checks as the visitor goes: field errors from `/validate` for the
 * fields touched (after a short pause), a step's check before Next (the browser's own
 * check when offline), and showing a refusal: errors beside the fields, a summary notice
 * that takes the focus, and the step holding the first error brought into view.
 * @module
 */
import type { RefObject } from "preact";
import { useRef, useState } from "preact/hooks";
import { isFileField } from "@/components/fields.ts";
import { postJson } from "./client.ts";
import { stepErrors } from "./logic.ts";
import { summary } from "./notice.tsx";
import type { HostedFormProps, HostedNotice } from "./types.ts";

/** A problem as a 422 lists it. */
export interface Problem {
  field: string;
  message: string;
}

/** What the checks need of the page. */
export interface ChecksOptions {
  props: HostedFormProps;
  /** `/api/v1/forms/p/<id>`. */
  api: string;
  /** The values the page holds (shown fields only), or null before the form exists. */
  currentData: () => Record<string, unknown> | null;
  /** The uploads still running, by field name. */
  uploading: () => Record<string, Promise<void>>;
  /** Shows the step holding the first of these fields. */
  reveal: (names: string[]) => void;
  noticeRef: RefObject<HTMLDivElement | null>;
}

/** The page's errors, its notice, and the checks that set them. */
export function useChecks(o: ChecksOptions) {
  const { props } = o;
  const [errors, setErrors] = useState<Record<string, string>>(props.errors);
  const [notice, setNotice] = useState<HostedNotice | null>(props.notice);
  const touched = useRef(new Set<string>());
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const byName = new Map(props.fields.map((f) => [f.name, f]));
  const langHeaders = { "Accept-Language": props.lang };

  function ask(data: Record<string, unknown>) {
    return postJson(
      `${o.api}/validate`,
      { data, schema_version: props.schemaVersion },
      langHeaders,
    );
  }

  /** Checks the touched fields through `/validate` and updates their errors. */
  async function validate() {
    const data = o.currentData();
    if (!data || !touched.current.size) return;
    const res = await ask(data);
    if (res.status !== 200 && res.status !== 422) return; // rate limited or offline: skip
    const found: Record<string, string> = {};
    for (const e of (res.body?.errors as Problem[] | undefined) ?? []) found[e.field] = e.message;
    setErrors((prev) => {
      const next = { ...prev };
      for (const name of touched.current) {
        const f = byName.get(name);
        // A file still uploading has no reference yet: not an error.
        if (f && isFileField(f) && name in o.uploading()) continue;
        if (found[name]) next[name] = found[name];
        else delete next[name];
      }
      return next;
    });
  }

  /** Marks a field touched (its errors follow its value from now on). */
  function touch(name: string) {
    touched.current.add(name);
  }

  /** Validates the touched fields after a short pause. */
  function validateSoon() {
    clearTimeout(timer.current);
    timer.current = setTimeout(validate, 250);
  }

  /** Shows field errors and a notice (a summary of them unless given), focused. */
  function showErrors(found: Record<string, string>, extra?: HostedNotice) {
    setErrors(found);
    setNotice(extra ?? summary(found, props.fields, props.lang));
    // The first step with an error is shown, so the summary's links lead somewhere.
    o.reveal(Object.keys(found));
    requestAnimationFrame(() => o.noticeRef.current?.focus());
  }

  /** Found errors of a 422 as the page shows them (fields, and a line for the others). */
  function showRefusal(items: Problem[]) {
    const found: Record<string, string> = {};
    const other: string[] = [];
    for (const it of items) {
      if (byName.has(it.field)) found[it.field] ??= it.message;
      else other.push(it.message);
    }
    const n = summary(found, props.fields, props.lang);
    if (other.length) n.extra = other.join(" ");
    showErrors(found, n);
  }

  /**
   * Checks step `step` (0-based) through `/validate` (offline: the browser's own check);
   * shows its errors and answers false when it has any.
   */
  async function checkStep(step: number): Promise<boolean> {
    const data = o.currentData();
    if (!data) return false;
    const res = await ask(data);
    const mine = new Set(props.steps[step]?.fields ?? []);
    const found: Record<string, string> = {};
    if (res.status === 422 && Array.isArray(res.body?.errors)) {
      for (const e of res.body.errors as Problem[]) {
        if (mine.has(e.field)) found[e.field] ??= e.message;
      }
    } else if (res.status === 0) {
      Object.assign(found, stepErrors(props.fields, props.steps, data, step, props.lang));
    }
    for (const name of mine) touched.current.add(name);
    if (Object.keys(found).length) {
      const kept = Object.fromEntries(Object.entries(errors).filter(([n]) => !mine.has(n)));
      showErrors({ ...kept, ...found });
      return false;
    }
    setErrors((prev) => Object.fromEntries(Object.entries(prev).filter(([n]) => !mine.has(n))));
    return true;
  }

  return {
    errors,
    setErrors,
    notice,
    setNotice,
    touched: (name: string) => touched.current.has(name),
    touch,
    validateSoon,
    showErrors,
    showRefusal,
    checkStep,
  };
}
