/**
 * Saved progress on the hosted page, for forms that keep drafts: a short notice that
 * progress is saved, a debounced save as the visitor types (and at once on a step change),
 * a discreet "Saved", "Email me a link to finish later", and resuming from a `?resume=`
 * link or from this browser (localStorage holds the resume token). The bar that says so is
 * draft_bar.tsx.
 * @module
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { Field } from "@/lib/schemas.ts";
import { isFileField } from "@/components/fields.ts";
import { uiText } from "@/lib/rules/mod.ts";

/** Milliseconds of quiet typing before a save. */
export const SAVE_DELAY_MS = 1200;

/** The drafts setting the page renders from. */
export interface HostedDrafts {
  ttlDays: number;
  /** The draft the page was rendered with (a resume link, a refused post), or null. */
  draftId: string | null;
}

/** Where the page's saving stands. */
export type Status = "idle" | "saving" | "saved" | "offline" | "error";

/** What HostedForm uses of the drafts. */
export interface DraftsHandle {
  enabled: boolean;
  status: Status;
  /** The draft this page continues, posted as `_draft_id` so a plain post removes it too. */
  draftId: string | null;
  /** Saves after the visitor stops typing. */
  schedule(): void;
  /** Saves now (a step change), with the step's 1-based position when the form has steps. */
  saveNow(step?: number): Promise<void>;
  /** What a submit adds to its body: the draft it completes. */
  submitPart(): { draft_id?: string };
  /** Forgets the draft once its submission is stored (the server removed it). */
  submitted(): void;
  /** Mails a resume link; answers the message to show. */
  mailLink(email: string): Promise<string>;
}

interface DraftOptions {
  drafts: HostedDrafts | null;
  /** `/api/v1/forms/p/<id>`. */
  api: string;
  formId: string;
  fields: Field[];
  /** The page's language (the messages of "email me a link"). */
  lang: string;
  form: () => HTMLFormElement | null;
  collect: () => Record<string, unknown>;
  /** Called once a resumed draft filled the form, with its step (1-based) when saved. */
  onRestore?: (step?: number) => void;
}

function storageKey(formId: string): string {
  return `formwell:draft:${formId}`;
}

function stored(formId: string): string | null {
  try {
    return localStorage.getItem(storageKey(formId));
  } catch {
    return null; // storage off: resuming works from links only
  }
}

function remember(formId: string, token: string | null): void {
  try {
    if (token) localStorage.setItem(storageKey(formId), token);
    else localStorage.removeItem(storageKey(formId));
  } catch {
    // storage off
  }
}

/** The draft id a resume token names (`<draft id>.<secret>`). */
function draftIdOf(token: string): string {
  return token.split(".")[0];
}

async function call(
  url: string,
  method: string,
  token: string | null,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> | null }> {
  try {
    const res = await fetch(url, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "omit",
    });
    return { status: res.status, body: await res.json().catch(() => null) };
  } catch {
    return { status: 0, body: null };
  }
}

/** Puts a draft's values into the form's controls (the inverse of collectData). */
export function fillForm(form: HTMLFormElement, fields: Field[], data: Record<string, unknown>) {
  for (const f of fields) {
    if (!Object.hasOwn(data, f.name)) continue;
    const v = data[f.name];
    const controls = [...form.querySelectorAll<HTMLInputElement>(`[name="${CSS.escape(f.name)}"]`)];
    for (const el of controls) {
      if (el.type === "file") continue;
      if (el.type === "checkbox" || el.type === "radio") {
        el.checked = Array.isArray(v) ? v.includes(el.value) : v === true || v === el.value;
      } else if (el instanceof HTMLSelectElement && el.multiple && Array.isArray(v)) {
        for (const o of el.options) o.selected = v.includes(o.value);
      } else el.value = v === null || v === undefined ? "" : String(v);
    }
  }
}

/** The drafts of a hosted page (a no-op handle when the form keeps none). */
export function useDrafts(o: DraftOptions): DraftsHandle {
  const [status, setStatusState] = useState<Status>("idle");
  const last = useRef<Status>("idle");
  const setStatus = (s: Status) => setStatusState(last.current = s);
  const token = useRef<string | null>(null);
  const step = useRef<number | undefined>(undefined);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const chain = useRef<Promise<void>>(Promise.resolve());
  const done = useRef(false);
  const enabled = o.drafts !== null;
  const [draftId, setDraftId] = useState<string | null>(o.drafts?.draftId ?? null);
  const hold = (t: string | null) => {
    token.current = t;
    remember(o.formId, t);
    if (t) setDraftId(draftIdOf(t));
  };

  useEffect(() => {
    if (!enabled) return;
    const url = new URL(location.href);
    const fromLink = url.searchParams.get("resume");
    const candidate = fromLink ?? stored(o.formId);
    if (fromLink) {
      // The token leaves the address bar (and this page's history entry) once read.
      url.searchParams.delete("resume");
      history.replaceState(history.state, "", url.toString());
    }
    if (!candidate) return;
    call(`${o.api}/drafts/${encodeURIComponent(draftIdOf(candidate))}`, "GET", candidate)
      .then((res) => {
        if (res.status === 404) return remember(o.formId, null);
        if (res.status !== 200 || !res.body) return;
        hold(candidate);
        const form = o.form();
        if (form) fillForm(form, o.fields, res.body.data as Record<string, unknown>);
        if (typeof res.body.step === "number") step.current = res.body.step;
        o.onRestore?.(step.current);
        setStatus("saved");
      });
    // A save that failed offline goes again once the browser is back online.
    const online = () => {
      if (last.current === "offline") schedule();
    };
    globalThis.addEventListener("online", online);
    return () => globalThis.removeEventListener("online", online);
  }, []);

  async function save(): Promise<void> {
    if (done.current) return;
    setStatus("saving");
    // A draft never holds files (nor their uploads' references): they are chosen again.
    const data = o.collect();
    for (const f of o.fields) if (isFileField(f)) delete data[f.name];
    const body = { data, ...(step.current ? { step: step.current } : {}) };
    const res = token.current
      ? await call(
        `${o.api}/drafts/${encodeURIComponent(draftIdOf(token.current))}`,
        "PUT",
        token.current,
        body,
      )
      : await call(`${o.api}/drafts`, "POST", null, body);
    if (done.current) return;
    if (res.status === 201 && typeof res.body?.resume_token === "string") {
      hold(res.body.resume_token);
    }
    if (res.status === 404 && token.current) {
      // Expired or removed: the next save starts a new draft.
      hold(null);
      setDraftId(null);
    }
    setStatus(
      res.status === 200 || res.status === 201 ? "saved" : res.status === 0 ? "offline" : "error",
    );
  }

  function queue(): Promise<void> {
    chain.current = chain.current.then(save, save);
    return chain.current;
  }

  function schedule() {
    if (!enabled || done.current) return;
    clearTimeout(timer.current);
    timer.current = setTimeout(queue, SAVE_DELAY_MS);
  }

  return {
    enabled,
    status,
    draftId,
    schedule,
    saveNow(s?: number) {
      if (!enabled) return Promise.resolve();
      if (s !== undefined) step.current = s;
      clearTimeout(timer.current);
      return queue();
    },
    submitPart() {
      const id = token.current ? draftIdOf(token.current) : draftId;
      return id ? { draft_id: id } : {};
    },
    submitted() {
      done.current = true;
      clearTimeout(timer.current);
      remember(o.formId, null);
    },
    async mailLink(email: string) {
      clearTimeout(timer.current);
      await queue();
      if (!token.current) return uiText(o.lang, "draft_not_yet");
      const res = await call(
        `${o.api}/drafts/${encodeURIComponent(draftIdOf(token.current))}/resume-link`,
        "POST",
        token.current,
        { email },
      );
      if (res.status === 202) {
        return uiText(o.lang, "draft_sent", { email, days: o.drafts!.ttlDays });
      }
      if (res.status === 400) return uiText(o.lang, "draft_bad_email");
      // A 429's own words say when to try again; anything else gets the page's language.
      return res.status === 429 && typeof res.body?.error === "string"
        ? res.body.error
        : uiText(o.lang, "draft_link_failed");
    },
  };
}
