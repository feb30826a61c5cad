/**
 * The hosted form (`/f/:public_id`). Server-rendered it is a plain HTML form posting to
 * the no-JS submit path; hydrated it adds validation through `/validate` with errors next
 * to the fields, `view`/`start` events, signed-URL uploads with a progress bar, and a
 * JSON submit (same Idempotency-Key as the page's hidden field) that falls back to the
 * plain post when the network or the server fails, or the key was spent on other answers.
 * @module
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { Field } from "@/lib/schemas.ts";
import {
  type FileRef,
  postJson,
  recaptchaV3Token,
  sendEvent,
  sessionId,
  UploadError,
  uploadFile,
} from "./hosted/client.ts";
import { FieldRow, type FileState } from "./hosted/fields.tsx";
import { collectData, ids, isFileField, typeMatches } from "@/components/fields.ts";
import type { HostedFormProps, HostedNotice } from "./hosted/types.ts";
import { DraftBar, useDrafts } from "./hosted/drafts.tsx";

const TOKEN_FIELDS: Record<string, string> = {
  turnstile: "cf-turnstile-response",
  hcaptcha: "h-captcha-response",
  recaptcha: "g-recaptcha-response",
  altcha: "altcha",
};

/** The error summary above the form; each item links to its field. */
function Notice({ notice, fields }: { notice: HostedNotice; fields: Field[] }) {
  const byName = new Map(fields.map((f) => [f.name, f]));
  return (
    <div>
      <p>{notice.message}</p>
      {notice.items?.length
        ? (
          <ul>
            {notice.items.map((it) => {
              const f = byName.get(it.field);
              return (
                <li key={it.field}>
                  {f ? <a href={`#${ids(f).control}`}>{it.message}</a> : it.message}
                </li>
              );
            })}
          </ul>
        )
        : null}
    </div>
  );
}

function summary(errors: Record<string, string>, fields: Field[]): HostedNotice {
  const items = fields.filter((f) => errors[f.name]).map((f) => ({
    field: f.name,
    message: errors[f.name],
  }));
  const n = items.length;
  return {
    kind: "error",
    message: n === 1 ? "Please correct 1 field." : `Please correct ${n} fields.`,
    items,
  };
}

/**
 * The notice as shown: a field summary follows the fields' current errors (a fixed field
 * leaves it, and it goes once none is left); any other notice is shown as it is.
 */
function liveNotice(
  notice: HostedNotice | null,
  errors: Record<string, string>,
  fields: Field[],
): HostedNotice | null {
  if (!notice?.items) return notice;
  const now = summary(errors, fields);
  if (!now.items?.length) return notice.extra ? { kind: "error", message: notice.extra } : null;
  if (notice.extra) now.message = `${now.message} ${notice.extra}`;
  return { ...now, extra: notice.extra };
}

function withParam(url: string, key: string, value: string): string {
  const u = new URL(url, location.href);
  u.searchParams.set(key, value);
  return u.toString();
}

/** The hosted form island. */
export default function HostedForm(props: HostedFormProps) {
  const [errors, setErrors] = useState<Record<string, string>>(props.errors);
  const [notice, setNotice] = useState<HostedNotice | null>(props.notice);
  const [files, setFiles] = useState<Record<string, FileState>>({});
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const noticeRef = useRef<HTMLDivElement>(null);
  const refs = useRef<Record<string, FileRef | undefined>>({});
  const uploads = useRef<Record<string, Promise<void>>>({});
  const touched = useRef(new Set<string>());
  const started = useRef(false);
  const sending = useRef(false);
  const session = useRef("");
  const renderedAt = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const byName = new Map(props.fields.map((f) => [f.name, f]));
  const shown = liveNotice(notice, errors, props.fields);
  const api = `${props.apiBase}/forms/p/${encodeURIComponent(props.formId)}`;
  const drafts = useDrafts({
    drafts: props.drafts ?? null,
    api,
    formId: props.formId,
    fields: props.fields,
    form: () => formRef.current,
    collect: () =>
      formRef.current ? collectData(formRef.current, props.fields, null, refs.current) : {},
  });

  useEffect(() => {
    // Scripted validation replaces the browser's bubbles (errors sit next to the fields).
    if (formRef.current) formRef.current.noValidate = true;
    session.current = sessionId();
    renderedAt.current = Date.now();
    sendEvent(props.apiBase, props.formId, "view", session.current);
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

  function fieldOf(target: EventTarget | null): Field | undefined {
    const name = (target as HTMLInputElement | null)?.name;
    return name ? byName.get(name) : undefined;
  }

  async function validate() {
    if (!formRef.current || !touched.current.size) return;
    const data = collectData(formRef.current, props.fields, null, refs.current);
    const res = await postJson(`${api}/validate`, { data, schema_version: props.schemaVersion });
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

  function onFile(field: Field, input: HTMLInputElement) {
    const file = input.files?.[0];
    refs.current[field.name] = undefined;
    delete uploads.current[field.name];
    setFiles(({ [field.name]: _, ...rest }) => rest);
    const fail = (message: string) => setErrors((p) => ({ ...p, [field.name]: message }));
    setErrors(({ [field.name]: _, ...rest }) => rest);
    if (!file) return;
    if (!typeMatches(file.type || "application/octet-stream", field.allowedTypes)) {
      return fail(`${field.label || field.name}: this type of file is not accepted.`);
    }
    if (field.maxSizeMB && file.size > field.maxSizeMB * 1024 * 1024) {
      return fail(`${field.label || field.name}: the file is larger than ${field.maxSizeMB} MB.`);
    }
    const set = (s: FileState) => setFiles((p) => ({ ...p, [field.name]: s }));
    set({ status: "uploading", progress: 0, name: file.name });
    const job = uploadFile(
      props.apiBase,
      props.formId,
      field,
      file,
      (progress) => set({ status: "uploading", progress, name: file.name }),
    )
      .then((ref) => {
        refs.current[field.name] = ref;
        set({ status: "done", progress: 1, name: file.name });
      })
      .catch((err) => {
        set({ status: "error", progress: 0, name: file.name });
        fail(err instanceof UploadError ? err.message : "The file could not be uploaded.");
      })
      .finally(() => {
        if (uploads.current[field.name] === job) delete uploads.current[field.name];
      });
    uploads.current[field.name] = job;
  }

  function showErrors(found: Record<string, string>, extra?: HostedNotice) {
    setErrors(found);
    setNotice(extra ?? summary(found, props.fields));
    requestAnimationFrame(() => noticeRef.current?.focus());
  }

  async function captchaToken(form: HTMLFormElement): Promise<string | undefined> {
    const c = props.captcha;
    if (!c) return undefined;
    if (c.provider === "recaptcha" && c.version === "v3") {
      return (await recaptchaV3Token(c.siteKey ?? "", c.action ?? "submit")) ?? undefined;
    }
    const v = new FormData(form).get(TOKEN_FIELDS[c.provider]);
    return typeof v === "string" && v ? v : undefined;
  }

  async function onSubmit(e: Event) {
    const form = formRef.current;
    if (!form || typeof fetch !== "function") return; // the plain post goes ahead
    e.preventDefault();
    if (sending.current) return; // a double click sends once
    sending.current = true;
    setBusy(true);
    let leaving = false;
    try {
      await Promise.all(Object.values(uploads.current));
      const data = collectData(form, props.fields, props.honeypot, refs.current);
      const token = await captchaToken(form);
      const res = await postJson(props.action, {
        data,
        schema_version: props.schemaVersion,
        rendered_at: renderedAt.current || undefined,
        ...(token ? { captcha_token: token } : {}),
        ...drafts.submitPart(),
      }, { "Idempotency-Key": props.idempotencyKey });
      const body = res.body ?? {};
      if (res.status === 201 && typeof body.submission_id === "string") {
        leaving = true;
        drafts.submitted();
        location.assign(withParam(props.successUrl, "submission_id", body.submission_id));
        return;
      }
      if (res.status === 422 && Array.isArray(body.errors)) {
        const found: Record<string, string> = {};
        const other: string[] = [];
        for (const it of body.errors as { field: string; message: string }[]) {
          if (byName.has(it.field)) found[it.field] ??= it.message;
          else other.push(it.message);
        }
        const n = summary(found, props.fields);
        if (other.length) n.extra = other.join(" ");
        return showErrors(found, n);
      }
      if (
        res.status === 0 || res.status >= 500 || !res.body || body.code === "schema_changed" ||
        body.code === "idempotency_key_reused"
      ) {
        // Offline, a server fault, a changed form, or this page's key already spent on
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
        if (f) drafts.schedule();
      }}
      onChange={(e) => {
        start();
        const f = fieldOf(e.target);
        if (!f) return;
        touched.current.add(f.name);
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
      {props.fields.map((f) => (
        <FieldRow
          key={f.id}
          field={f}
          value={props.values[f.name]}
          error={errors[f.name]}
          file={files[f.name]}
        />
      ))}
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
      <div class="actions">
        <button type="submit" aria-disabled={busy ? "true" : undefined}>
          {busy ? "Sending…" : props.submitLabel}
        </button>
        <span class="status" role="status">{busy ? "Sending your response…" : ""}</span>
      </div>
      {props.drafts && <DraftBar drafts={drafts} ttlDays={props.drafts.ttlDays} />}
    </form>
  );
}
