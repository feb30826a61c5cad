/**
 * The hosted form (`/f/:public_id`). Server-rendered it is a plain HTML form posting to
 * the no-JS submit path, its steps as sections of one page; hydrated it shows and hides
 * conditional fields and computes fields live (lib/rules, as the server does), shows one
 * step at a time with progress and Back/Next (hosted/navigation.ts), checks fields as the
 * visitor goes (hosted/checks.ts), sends `view`/`start` events, uploads files through
 * signed URLs (hosted/uploads.ts), saves drafts (hosted/drafts.tsx) and sends as JSON,
 * through the outbox when offline (hosted/submit.ts). This module wires them together.
 * @module
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { Field } from "@/lib/schemas.ts";
import { sendEvent, sessionId } from "./hosted/client.ts";
import { FormFields } from "./hosted/body.tsx";
import { useUploads } from "./hosted/uploads.ts";
import { collectData, isFileField } from "@/components/fields.ts";
import { uiText } from "@/lib/rules/mod.ts";
import type { HostedFormProps } from "./hosted/types.ts";
import { liveNotice, Notice } from "./hosted/notice.tsx";
import { pageLogic } from "./hosted/logic.ts";
import { StepButtons, StepProgress } from "./hosted/steps.tsx";
import { useDrafts } from "./hosted/drafts.tsx";
import { DraftBar } from "./hosted/draft_bar.tsx";
import { useChecks } from "./hosted/checks.ts";
import { useStepNav } from "./hosted/navigation.ts";
import { useSubmit } from "./hosted/submit.ts";

/** The hosted form island. */
export default function HostedForm(props: HostedFormProps) {
  // Until hydrated the page is the no-JS page: every field and step shown, as rendered.
  const [live, setLive] = useState(false);
  const [logic, setLogic] = useState(() =>
    pageLogic(props.fields, props.steps, props.values, "form")
  );
  const formRef = useRef<HTMLFormElement>(null);
  const noticeRef = useRef<HTMLDivElement>(null);
  const started = useRef(false);
  const session = useRef("");
  const byName = new Map(props.fields.map((f) => [f.name, f]));
  const lang = props.lang;
  const api = `${props.apiBase}/forms/p/${encodeURIComponent(props.formId)}`;
  const checks = useChecks({
    props,
    api,
    currentData: () => (formRef.current ? currentData() : null),
    uploading: () => up.uploads.current,
    reveal: (names) => nav.reveal(names),
    noticeRef,
  });
  const up = useUploads(props.apiBase, props.formId, lang, checks.setErrors);
  const nav = useStepNav({
    steps: props.steps,
    initialErrors: Object.keys(props.errors),
    logic,
    live,
    check: checks.checkStep,
    onMove: (step) => {
      checks.setNotice(null);
      void drafts.saveNow(step + 1);
      sendEvent(props.apiBase, props.formId, "view", session.current, step + 1);
    },
  });
  const drafts = useDrafts({
    drafts: props.drafts ?? null,
    api,
    formId: props.formId,
    fields: props.fields,
    lang,
    form: () => formRef.current,
    collect: () => (formRef.current ? currentData() : {}),
    onRestore: (step) => {
      refresh();
      if (step !== undefined && props.steps[step - 1]) nav.show(step - 1);
    },
  });
  const send = useSubmit({
    props,
    form: formRef,
    noticeRef,
    uploading: () => up.uploads.current,
    data: () => currentData(props.honeypot),
    drafts,
    // Enter in a field of an earlier step moves on, as Next does.
    advance: () => nav.stepped && !nav.last && (void nav.next(), true),
    errors: () => checks.errors,
    showErrors: checks.showErrors,
    showRefusal: checks.showRefusal,
    setNotice: checks.setNotice,
  });
  const { errors } = checks;
  const shown = liveNotice(checks.notice, errors, props.fields, lang);
  const { stepped, current, position, busy } = { ...nav, busy: send.busy };
  const { files, refs, onFile } = up;

  useEffect(() => {
    // Scripted validation replaces the browser's bubbles (errors sit next to the fields).
    if (formRef.current) formRef.current.noValidate = true;
    session.current = sessionId();
    setLive(true);
    refresh();
    const step = props.steps.length ? nav.current + 1 : undefined;
    sendEvent(props.apiBase, props.formId, "view", session.current, step);
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

  function fieldOf(target: EventTarget | null): Field | undefined {
    const name = (target as HTMLInputElement | null)?.name;
    return name ? byName.get(name) : undefined;
  }

  return (
    <form
      ref={formRef}
      class="hosted-form"
      method="post"
      action={props.action}
      enctype={props.fields.some(isFileField) ? "multipart/form-data" : undefined}
      onSubmit={send.onSubmit}
      onInput={(e) => {
        start();
        const f = fieldOf(e.target);
        if (f) checks.touch(f.name);
        refresh();
        if (f) drafts.schedule();
      }}
      onChange={(e) => {
        start();
        const f = fieldOf(e.target);
        if (!f) return;
        checks.touch(f.name);
        refresh();
        if (isFileField(f)) onFile(f, e.target as HTMLInputElement);
        else checks.validateSoon();
      }}
      onFocusOut={(e) => {
        const f = fieldOf(e.target);
        if (f && checks.touched(f.name)) checks.validateSoon();
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
      {stepped && <StepProgress position={position} total={nav.total} lang={lang} />}
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
            last={nav.last}
            busy={busy}
            checking={nav.checking}
            submitLabel={props.submitLabel}
            lang={lang}
            onBack={nav.back}
            onNext={() => void nav.next()}
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
          lang={lang}
        />
      )}
    </form>
  );
}
