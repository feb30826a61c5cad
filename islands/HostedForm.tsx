/**
 * The hosted form (`/f/:public_id`). Server-rendered it is a plain HTML form posting to
 * the no-JS submit path, its steps as sections of one page; hydrated it shows and hides
 * conditional fields and computes fields live (lib/rules, as the server does), shows one
 * step at a time with progress and Back/Next (each step checked through `/validate`),
 * adds validation with errors next to the fields, `view`/`start` events, signed-URL
 * uploads with a progress bar, and a JSON submit (same Idempotency-Key as the page's
 * hidden field). Offline, the submit goes to the client library's outbox under that same
 * key (sent once when the browser is back online, by this page or the next one of the
 * site); a server fault, a changed form or a key spent on other answers falls back to the
 * plain post.
 * @module
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { Field } from "@/lib/schemas.ts";
import { captchaToken, postJson, sendEvent, sessionId } from "./hosted/client.ts";
import { FormFields } from "./hosted/body.tsx";
import { useUploads } from "./hosted/uploads.ts";
import { collectData, isFileField } from "@/components/fields.ts";
import { uiText } from "@/lib/rules/mod.ts";
import type { HostedFormProps, HostedNotice } from "./hosted/types.ts";
import { liveNotice, Notice, summary } from "./hosted/notice.tsx";
import { pageLogic, stepErrors } from "./hosted/logic.ts";
import { StepButtons, StepProgress, visibleSteps } from "./hosted/steps.tsx";
import { DraftBar, useDrafts } from "./hosted/drafts.tsx";
import { Formwell } from "@/sdk/src/client.ts";
import type { FormwellError } from "@/sdk/src/errors.ts";

function withParam(url: string, key: string, value: string): string {
  const u = new URL(url, location.href);
  u.searchParams.set(key, value);
  return u.toString();
}

/** The hosted form island. */
export default function HostedForm(props: HostedFormProps) {
  const [errors, setErrors] = useState<Record<string, string>>(props.errors);
  const [notice, setNotice] = useState<HostedNotice | null>(props.notice);
  const [busy, setBusy] = useState(false);
  // Until hydrated the page is the no-JS page: every field and step shown, as rendered.
  const [live, setLive] = useState(false);
  const [logic, setLogic] = useState(() =>
    pageLogic(props.fields, props.steps, props.values, "form")
  );
  const [at, setAt] = useState(() => firstStepOf(props, Object.keys(props.errors)));
  const [checking, setChecking] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const noticeRef = useRef<HTMLDivElement>(null);
  const { files, refs, uploads, onFile } = useUploads(props.apiBase, props.formId, setErrors);
  const touched = useRef(new Set<string>());
  const started = useRef(false);
  const sending = useRef(false);
  const session = useRef("");
  const renderedAt = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const outbox = useRef<Formwell | null>(null);
  const byName = new Map(props.fields.map((f) => [f.name, f]));
  const lang = props.lang;
  const shown = liveNotice(notice, errors, props.fields, lang);
  const api = `${props.apiBase}/forms/p/${encodeURIComponent(props.formId)}`;
  const langHeaders = { "Accept-Language": props.lang };
  const stepped = live && props.steps.length > 0;
  const order = visibleSteps(logic.steps);
  // A step hidden by a change of answers gives way to the next one shown.
  const current = order.includes(at) ? at : order.find((i) => i > at) ?? order.at(-1) ?? 0;
  const position = order.indexOf(current) + 1;
  const drafts = useDrafts({
    drafts: props.drafts ?? null,
    api,
    formId: props.formId,
    fields: props.fields,
    form: () => formRef.current,
    collect: () => (formRef.current ? currentData() : {}),
    onRestore: (step) => {
      refresh();
      if (step !== undefined && props.steps[step - 1]) setAt(step - 1);
    },
  });

  useEffect(() => {
    // Scripted validation replaces the browser's bubbles (errors sit next to the fields).
    if (formRef.current) formRef.current.noValidate = true;
    session.current = sessionId();
    renderedAt.current = Date.now();
    // Also sends what an earlier visit of this site left in the outbox.
    outbox.current = new Formwell({ baseUrl: location.origin });
    setLive(true);
    refresh();
    const step = props.steps.length ? at + 1 : undefined;
    sendEvent(props.apiBase, props.formId, "view", session.current, step);
    // Back to a page restored as it was left (mid-leave): it must send again when asked.
    const onShow = (e: PageTransitionEvent) => {
      if (!e.persisted) return;
      sending.current = false;
      setBusy(false);
    };
    globalThis.addEventListener("pageshow", onShow);
    return () => globalThis.removeEventListener("pageshow", onShow);
  }, []);

  function start() {
    if (started.current) return;
    started.current = true;
    sendEvent(props.apiBase, props.formId, "start", session.current);
  }

  /** The values as the page holds them: shown fields only. */
  function currentData(honeypot: string | null = null): Record<string, unknown> {
    const all = collectData(formRef.current!, props.fields, honeypot, refs.current);
    const now = pageLogic(props.fields, props.steps, all, "json");
    for (const name of Object.keys(all)) if (now.shown[name] === false) delete all[name];
    return all;
  }

  /** Applies the rules to the page's values: shown fields and steps, computed values. */
  function refresh() {
    if (!formRef.current) return;
    const all = collectData(formRef.current, props.fields, null, refs.current);
    setLogic(pageLogic(props.fields, props.steps, all, "json"));
  }

  function go(step: number) {
    setAt(step);
    setNotice(null);
    void drafts.saveNow(step + 1);
    sendEvent(props.apiBase, props.formId, "view", session.current, step + 1);
    requestAnimationFrame(() => {
      const h = document.getElementById(`step-${step}-title`);
      h?.focus();
      h?.scrollIntoView?.({ block: "nearest" });
    });
  }

  /** Checks the current step through `/validate` (offline: the browser's own check). */
  async function next() {
    if (!formRef.current || checking) return;
    setChecking(true);
    const data = currentData();
    const res = await postJson(`${api}/validate`, {
      data,
      schema_version: props.schemaVersion,
    }, langHeaders);
    setChecking(false);
    const mine = new Set(props.steps[current]?.fields ?? []);
    const found: Record<string, string> = {};
    if (res.status === 422 && Array.isArray(res.body?.errors)) {
      for (const e of res.body.errors as { field: string; message: string }[]) {
        if (mine.has(e.field)) found[e.field] ??= e.message;
      }
    } else if (res.status === 0) {
      Object.assign(found, stepErrors(props.fields, props.steps, data, current, lang));
    }
    for (const name of mine) touched.current.add(name);
    if (Object.keys(found).length) {
      const kept = Object.fromEntries(Object.entries(errors).filter(([n]) => !mine.has(n)));
      return showErrors({ ...kept, ...found });
    }
    setErrors((prev) => Object.fromEntries(Object.entries(prev).filter(([n]) => !mine.has(n))));
    const later = order.find((i) => i > current);
    if (later !== undefined) go(later);
  }

  function back() {
    const earlier = order.filter((i) => i < current).at(-1);
    if (earlier !== undefined) go(earlier);
  }

  function fieldOf(target: EventTarget | null): Field | undefined {
    const name = (target as HTMLInputElement | null)?.name;
    return name ? byName.get(name) : undefined;
  }

  async function validate() {
    if (!formRef.current || !touched.current.size) return;
    const data = currentData();
    const res = await postJson(
      `${api}/validate`,
      { data, schema_version: props.schemaVersion },
      langHeaders,
    );
    if (res.status !== 200 && res.status !== 422) return; // rate limited or offline: skip
    const found: Record<string, string> = {};
    for (const e of (res.body?.errors as { field: string; message: string }[] | undefined) ?? []) {
      found[e.field] = e.message;
    }
    setErrors((prev) => {
      const next = { ...prev };
      for (const name of touched.current) {
        const f = byName.get(name);
        // A file still uploading has no reference yet: not an error.
        if (f && isFileField(f) && name in uploads.current) continue;
        if (found[name]) next[name] = found[name];
        else delete next[name];
      }
      return next;
    });
  }

  function scheduleValidate() {
    clearTimeout(timer.current);
    timer.current = setTimeout(validate, 250);
  }

  function showErrors(found: Record<string, string>, extra?: HostedNotice) {
    setErrors(found);
    setNotice(extra ?? summary(found, props.fields, lang));
    // The first step with an error is shown, so the summary's links lead somewhere.
    if (props.steps.length) {
      const step = firstStepOf(props, Object.keys(found));
      if (order.includes(step)) setAt(step);
    }
    requestAnimationFrame(() => noticeRef.current?.focus());
  }

  /** Found errors of a 422 as the page shows them (fields, and a line for the others). */
  function showRefusal(items: { field: string; message: string }[]) {
    const found: Record<string, string> = {};
    const other: string[] = [];
    for (const it of items) {
      if (byName.has(it.field)) found[it.field] ??= it.message;
      else other.push(it.message);
    }
    const n = summary(found, props.fields, lang);
    if (other.length) n.extra = other.join(" ");
    showErrors(found, n);
  }

  /**
   * Hands the submission to the outbox (offline): kept on this device under the page's key
   * and sent once the browser is back online; the page stays, saying so, until it is.
   */
  function sendLater(data: Record<string, unknown>, token: string | undefined) {
    const { draft_id } = drafts.submitPart();
    outbox.current!.submit(props.formId, data, {
      idempotencyKey: props.idempotencyKey,
      schemaVersion: props.schemaVersion,
      captchaToken: token,
      draftId: draft_id,
      onQueued: () => {
        setBusy(false);
        setNotice({ kind: "info", message: uiText(lang, "queued") });
        requestAnimationFrame(() => noticeRef.current?.focus());
      },
    }).then((r) => {
      drafts.submitted();
      location.assign(withParam(props.successUrl, "submission_id", r.submission_id));
    }, (err: FormwellError) => {
      sending.current = false;
      setBusy(false);
      if (err.status === 422 && err.errors.length) return showRefusal(err.errors);
      showErrors(errors, { kind: "error", message: err.message });
    });
  }

  async function onSubmit(e: Event) {
    const form = formRef.current;
    if (!form || typeof fetch !== "function") return; // the plain post goes ahead
    e.preventDefault();
    // Enter in a field of an earlier step moves on, as Next does.
    if (stepped && position < order.length) return void next();
    if (sending.current) return; // a double click sends once
    sending.current = true;
    setBusy(true);
    let leaving = false;
    try {
      await Promise.all(Object.values(uploads.current));
      const data = currentData(props.honeypot);
      const token = await captchaToken(props.captcha, form);
      const offline = () => navigator.onLine === false && outbox.current !== null;
      if (offline()) {
        leaving = true; // the outbox ends this send
        return sendLater(data, token);
      }
      const res = await postJson(props.action, {
        data,
        schema_version: props.schemaVersion,
        rendered_at: renderedAt.current || undefined,
        ...(token ? { captcha_token: token } : {}),
        ...drafts.submitPart(),
      }, { "Idempotency-Key": props.idempotencyKey, ...langHeaders });
      const body = res.body ?? {};
      if (res.status === 201 && typeof body.submission_id === "string") {
        leaving = true;
        drafts.submitted();
        location.assign(withParam(props.successUrl, "submission_id", body.submission_id));
        return;
      }
      if (res.status === 422 && Array.isArray(body.errors)) {
        return showRefusal(body.errors as { field: string; message: string }[]);
      }
      if (res.status === 0 && offline()) {
        leaving = true;
        return sendLater(data, token);
      }
      if (
        res.status === 0 || res.status >= 500 || !res.body || body.code === "schema_changed" ||
        body.code === "idempotency_key_reused"
      ) {
        // A network failure online, a server fault, a changed form, or this page's key already spent on
        // other answers (Back, then an edit): the plain post re-renders the page with the
        // answers kept, a notice, and (for a spent key) a fresh key for the next Send.
        leaving = true;
        form.submit();
        return;
      }
      showErrors(errors, { kind: "error", message: String(body.error ?? "Something went wrong.") });
    } finally {
      if (!leaving) {
        sending.current = false;
        setBusy(false);
      }
    }
  }

  return (
    <form
      ref={formRef}
      class="hosted-form"
      method="post"
      action={props.action}
      enctype={props.fields.some(isFileField) ? "multipart/form-data" : undefined}
      onSubmit={onSubmit}
      onInput={(e) => {
        start();
        const f = fieldOf(e.target);
        if (f) touched.current.add(f.name);
        refresh();
        if (f) drafts.schedule();
      }}
      onChange={(e) => {
        start();
        const f = fieldOf(e.target);
        if (!f) return;
        touched.current.add(f.name);
        refresh();
        if (isFileField(f)) onFile(f, e.target as HTMLInputElement);
        else scheduleValidate();
      }}
      onFocusOut={(e) => {
        const f = fieldOf(e.target);
        if (f && touched.current.has(f.name)) scheduleValidate();
      }}
    >
      <div
        ref={noticeRef}
        class={shown ? `notice ${shown.kind}` : "notice-empty"}
        role="alert"
        tabIndex={-1}
        id="form-notice"
      >
        {shown && <Notice notice={shown} fields={props.fields} />}
      </div>
      <input type="hidden" name="_idempotency_key" value={props.idempotencyKey} />
      <input type="hidden" name="_schema_version" value={String(props.schemaVersion)} />
      {props.redirect && <input type="hidden" name="_redirect" value={props.redirect} />}
      {drafts.draftId && <input type="hidden" name="_draft_id" value={drafts.draftId} />}
      {stepped && <StepProgress position={position} total={order.length} lang={lang} />}
      <FormFields
        props={props}
        logic={logic}
        live={live}
        current={stepped ? current : null}
        errors={errors}
        files={files}
        choose={uiText(lang, "choose")}
      />
      {props.honeypot && (
        <div class="hp" aria-hidden="true">
          <label>
            Leave this field empty
            <input type="text" name={props.honeypot} tabIndex={-1} autocomplete="off" />
          </label>
        </div>
      )}
      {props.captcha?.widgetHtml && (
        <div class="captcha" dangerouslySetInnerHTML={{ __html: props.captcha.widgetHtml }} />
      )}
      {stepped
        ? (
          <StepButtons
            first={position <= 1}
            last={position >= order.length}
            busy={busy}
            checking={checking}
            submitLabel={props.submitLabel}
            lang={lang}
            onBack={back}
            onNext={() => void next()}
          />
        )
        : (
          <div class="actions">
            <button type="submit" aria-disabled={busy ? "true" : undefined}>
              {busy ? uiText(lang, "sending") : props.submitLabel}
            </button>
            <span class="status" role="status">{busy ? uiText(lang, "sending_status") : ""}</span>
          </div>
        )}
      {props.drafts && (
        <DraftBar
          drafts={drafts}
          ttlDays={props.drafts.ttlDays}
          files={props.fields.some(isFileField)}
        />
      )}
    </form>
  );
}

/** The first step (0-based) holding one of `names`; 0 when none does. */
function firstStepOf(props: HostedFormProps, names: string[]): number {
  const i = props.steps.findIndex((s) => s.fields.some((n) => names.includes(n)));
  return i < 0 ? 0 : i;
}
