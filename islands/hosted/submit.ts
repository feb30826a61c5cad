/**
 * The hosted form's send: once the uploads are done, a JSON submit with the page's
 * Idempotency-Key (a double click sends once). Offline, the submit goes to the client
 * library's outbox under that same key (sent once when the browser is back online, by this
 * page or the next one of the site); a server fault, a changed form or a key spent on other
 * answers falls back to the plain post, which re-renders the page with the answers kept.
 * @module
 */
import type { RefObject } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { uiText } from "@/lib/rules/mod.ts";
import { Formwell } from "@/sdk/src/client.ts";
import type { FormwellError } from "@/sdk/src/errors.ts";
import { captchaToken, postJson } from "./client.ts";
import type { Problem } from "./checks.ts";
import type { DraftsHandle } from "./drafts.tsx";
import type { HostedFormProps, HostedNotice } from "./types.ts";

function withParam(url: string, key: string, value: string): string {
  const u = new URL(url, location.href);
  u.searchParams.set(key, value);
  return u.toString();
}

/** What sending needs of the page. */
export interface SubmitOptions {
  props: HostedFormProps;
  form: RefObject<HTMLFormElement | null>;
  noticeRef: RefObject<HTMLDivElement | null>;
  /** The uploads still running, by field name. */
  uploading: () => Record<string, Promise<void>>;
  /** The values to send (shown fields, upload references, the honeypot). */
  data: () => Record<string, unknown>;
  drafts: DraftsHandle;
  /** Answers true when Enter should move to the next step instead (an earlier step). */
  advance: () => boolean;
  errors: () => Record<string, string>;
  showErrors: (found: Record<string, string>, extra?: HostedNotice) => void;
  showRefusal: (items: Problem[]) => void;
  setNotice: (n: HostedNotice | null) => void;
}

/** Whether the page is sending, and the form's submit handler. */
export function useSubmit(o: SubmitOptions) {
  const { props } = o;
  const [busy, setBusy] = useState(false);
  const sending = useRef(false);
  const renderedAt = useRef(0);
  const outbox = useRef<Formwell | null>(null);

  useEffect(() => {
    renderedAt.current = Date.now();
    // Also sends what an earlier visit of this site left in the outbox.
    outbox.current = new Formwell({ baseUrl: location.origin });
    // Back to a page restored as it was left (mid-leave): it must send again when asked.
    const onShow = (e: PageTransitionEvent) => {
      if (!e.persisted) return;
      sending.current = false;
      setBusy(false);
    };
    globalThis.addEventListener("pageshow", onShow);
    return () => globalThis.removeEventListener("pageshow", onShow);
  }, []);

  function leave(submissionId: string) {
    o.drafts.submitted();
    location.assign(withParam(props.successUrl, "submission_id", submissionId));
  }

  /**
   * Hands the submission to the outbox (offline): kept on this device under the page's key
   * and sent once the browser is back online; the page stays, saying so, until it is.
   */
  function sendLater(data: Record<string, unknown>, token: string | undefined) {
    const { draft_id } = o.drafts.submitPart();
    outbox.current!.submit(props.formId, data, {
      idempotencyKey: props.idempotencyKey,
      schemaVersion: props.schemaVersion,
      captchaToken: token,
      draftId: draft_id,
      onQueued: () => {
        setBusy(false);
        o.setNotice({ kind: "info", message: uiText(props.lang, "queued") });
        requestAnimationFrame(() => o.noticeRef.current?.focus());
      },
    }).then((r) => leave(r.submission_id), (err: FormwellError) => {
      sending.current = false;
      setBusy(false);
      if (err.status === 422 && err.errors.length) return o.showRefusal(err.errors);
      o.showErrors(o.errors(), { kind: "error", message: err.message });
    });
  }

  async function onSubmit(e: Event) {
    const form = o.form.current;
    if (!form || typeof fetch !== "function") return; // the plain post goes ahead
    e.preventDefault();
    if (o.advance()) return;
    if (sending.current) return; // a double click sends once
    sending.current = true;
    setBusy(true);
    let leaving = false;
    try {
      await Promise.all(Object.values(o.uploading()));
      const data = o.data();
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
        ...o.drafts.submitPart(),
      }, { "Idempotency-Key": props.idempotencyKey, "Accept-Language": props.lang });
      const body = res.body ?? {};
      if (res.status === 201 && typeof body.submission_id === "string") {
        leaving = true;
        return leave(body.submission_id);
      }
      if (res.status === 422 && Array.isArray(body.errors)) {
        return o.showRefusal(body.errors as Problem[]);
      }
      if (res.status === 0 && offline()) {
        leaving = true;
        return sendLater(data, token);
      }
      if (
        res.status === 0 || res.status >= 500 || !res.body || body.code === "schema_changed" ||
        body.code === "idempotency_key_reused"
      ) {
        // A network failure online, a server fault, a changed form, or this page's key
        // already spent on other answers (Back, then an edit): the plain post re-renders the
        // page with the answers kept, a notice, and (for a spent key) a fresh key.
        leaving = true;
        form.submit();
        return;
      }
      o.showErrors(o.errors(), {
        kind: "error",
        message: String(body.error ?? uiText(props.lang, "went_wrong")),
      });
    } finally {
      if (!leaving) {
        sending.current = false;
        setBusy(false);
      }
    }
  }

  return { busy, onSubmit };
}
