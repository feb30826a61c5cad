/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * `Formwell`, the client: submit (with files, CAPTCHA token, metadata), the form's schema,
 * validation, and, in a browser page, the outbox. Every submit is written to the outbox
 * before its first attempt and removed once the service answered it for good, so a
 * submission that cannot reach the service (offline, server down, tab closed mid-way) is
 * sent again with the same Idempotency-Key: when the browser is back online, on a backoff
 * timer while the page is open, and when a page of the same site makes a `Formwell` for the
 * same base URL. The page hears `queued`, then `sent` (or `failed`).
 * @module
 */
import { abortError, FormwellError, logRefusal, networkError } from "./errors.ts";
import {
  backoffMs,
  type Endpoint,
  isTransient,
  RETRY,
  type RetryPolicy,
  type Runtime,
  runtimeOf,
  send,
} from "./http.ts";
import { browserStore, type OutboxStore } from "./stores.ts";
import { type Job, precheck, sendJob } from "./submit.ts";
import type { UploadProgress } from "./upload.ts";
import type { PublicSchema, SubmitResult } from "./types.ts";
import { enhanceForm, type EnhanceOptions } from "./enhance.ts";
import {
  draftIdOf,
  Drafts,
  type DraftSaved,
  type ResumedDraft,
  type SaveDraftOptions,
} from "./drafts.ts";

/** How a client is made. */
export interface FormwellOptions {
  /** The service's address; in the served module it defaults to the module's own origin. */
  baseUrl?: string;
  /** A secret API key: server side only, never in a page. */
  apiKey?: string;
  /** Retries of one call (attempts, base and cap of the backoff); the outbox's timer uses base and cap. */
  retry?: Partial<RetryPolicy>;
  /** Keep submissions that cannot be sent yet (default: in a browser page without an API key). */
  outbox?: boolean;
  /** Where the outbox keeps them (default: IndexedDB, else localStorage, else memory). */
  store?: OutboxStore;
  /** Replaces fetch, clock, randomness or sleep (tests). */
  runtime?: Partial<Runtime>;
}

/** Options of one submit. */
export interface SubmitOptions {
  /** Files by field name (a Blob or File in `data` is taken as one too). */
  files?: Record<string, Blob>;
  /** The token the page's CAPTCHA widget gave. */
  captchaToken?: string;
  metadata?: Record<string, unknown>;
  /** The schema version the data was made for (default: the one `schema()` last returned). */
  schemaVersion?: number;
  /** The Idempotency-Key (default: a fresh random one). */
  idempotencyKey?: string;
  signal?: AbortSignal;
  onProgress?: (p: UploadProgress) => void;
  /** The submission could not be sent now; it is kept and sent later. */
  onQueued?: () => void;
  /** The draft this submission completes (default: the form's draft this browser keeps). */
  draftId?: string;
}

/** What the outbox tells the page. */
export interface OutboxEvent {
  type: "queued" | "sent" | "failed";
  /** The submission's Idempotency-Key. */
  id: string;
  publicId: string;
  /** Whether the submission was made by an earlier page (kept, then sent by this one). */
  restored: boolean;
  result?: SubmitResult;
  error?: FormwellError;
}

interface Waiter {
  resolve: (r: SubmitResult) => void;
  reject: (e: FormwellError) => void;
  job: Job;
  opts: SubmitOptions;
}

function moduleOrigin(): string {
  const url = new URL(import.meta.url);
  if (!/^https?:$/.test(url.protocol)) {
    throw new TypeError("Formwell: pass { baseUrl }.");
  }
  return url.origin;
}

/** The Formwell client. */
export class Formwell {
  /** The service's address, without a trailing slash. */
  readonly baseUrl: string;
  /** @internal */
  protected ep: Endpoint;
  #policy: RetryPolicy;
  #store?: OutboxStore;
  #listeners = new Set<(e: OutboxEvent) => void>();
  #waiters = new Map<string, Waiter>();
  #inflight = new Set<string>();
  #announced = new Set<string>();
  #schemas = new Map<string, Promise<PublicSchema>>();
  #versions = new Map<string, number>();
  #timer = false;
  #drafts: Drafts;

  constructor(opts: FormwellOptions = {}) {
    this.baseUrl = (opts.baseUrl ?? moduleOrigin()).replace(/\/+$/, "");
    this.ep = {
      baseUrl: this.baseUrl,
      apiKey: opts.apiKey,
      rt: runtimeOf(opts.runtime),
    };
    this.#policy = { ...RETRY, ...opts.retry };
    if (opts.outbox ?? (!opts.apiKey && typeof document === "object")) {
      this.#store = opts.store ?? browserStore();
      globalThis.addEventListener?.("online", () => this.flush());
      // What an earlier visit left is sent once the caller has added its listeners.
      this.ep.rt.sleep(0).then(() => this.flush());
    }
    this.#drafts = new Drafts(this.ep, this.#store !== undefined);
  }

  /**
   * Saves `data` as the visitor's draft of form `publicId` (a form that keeps drafts):
   * starts one, or saves the one this browser keeps. Offline, it waits and goes later.
   */
  saveDraft(
    publicId: string,
    data: Record<string, unknown>,
    opts: SaveDraftOptions = {},
  ): Promise<DraftSaved> {
    return this.#drafts.save(publicId, data, opts);
  }

  /**
   * The visitor's draft of form `publicId`, from `resumeToken`, a `?resume=` link in the
   * page's address, or the one this browser keeps; null when none is left.
   */
  resume(publicId: string, resumeToken?: string): Promise<ResumedDraft | null> {
    return this.#drafts.resume(publicId, resumeToken);
  }

  /** Mails the visitor a link to finish form `publicId` later (its draft must exist). */
  mailResumeLink(publicId: string, email: string): Promise<void> {
    return this.#drafts.mailLink(publicId, email);
  }

  /** Forgets the draft this browser keeps for form `publicId`. */
  forgetDraft(publicId: string): void {
    this.#drafts.forget(publicId);
  }

  /** Listens to the outbox; returns a function that stops listening. */
  on(listener: (e: OutboxEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The form's public schema (cached; `fresh` fetches it again). */
  schema(publicId: string, fresh = false): Promise<PublicSchema> {
    let p = this.#schemas.get(publicId);
    if (!p || fresh) {
      p = send<PublicSchema>(this.ep, {
        path: `/api/v1/forms/p/${encodeURIComponent(publicId)}`,
      });
      p.then((s) => this.#versions.set(publicId, s.form.schema_version), () => {
        this.#schemas.delete(publicId);
      });
      this.#schemas.set(publicId, p);
    }
    return p;
  }

  /** Checks `data` with the service without submitting; throws the 422 when invalid. */
  async validate(
    publicId: string,
    data: Record<string, unknown>,
  ): Promise<void> {
    await send(this.ep, {
      method: "POST",
      path: `/api/v1/forms/p/${encodeURIComponent(publicId)}/validate`,
      body: { data },
    }).catch((err) => {
      if (err instanceof FormwellError) logRefusal(err, publicId);
      throw err;
    });
  }

  /**
   * Submits `data` to form `publicId`: one logical submission, stored at most once. With
   * files, every field (files' type and size included) is checked before anything is sent.
   */
  async submit(
    publicId: string,
    data: Record<string, unknown>,
    opts: SubmitOptions = {},
  ): Promise<SubmitResult> {
    const files: Record<string, Blob> = { ...opts.files };
    const values: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(data)) {
      if (!(typeof Blob === "function" && v instanceof Blob)) values[k] = v;
      // An empty file input posts a nameless empty File: no file at all.
      else if (v.size || (v as File).name) files[k] = v;
    }
    const job: Job = {
      id: opts.idempotencyKey ?? this.ep.rt.newKey(),
      baseUrl: this.baseUrl,
      publicId,
      data: values,
      files,
      refs: {},
      captchaToken: opts.captchaToken,
      metadata: opts.metadata,
      schemaVersion: opts.schemaVersion ?? this.#versions.get(publicId),
      createdAt: this.ep.rt.now(),
      attempts: 0,
    };
    const draft = opts.draftId ?? this.#drafts.token(publicId);
    if (draft) job.draftId = draftIdOf(draft);
    if (opts.signal?.aborted) throw abortError();
    // A job with files is checked whole before its first upload, so every field's error
    // comes at once (without files, the submit's own 422 names them all).
    if (Object.keys(files).length) {
      const schema = await this.schema(publicId).catch(() => null);
      const refused = schema && precheck(job, schema);
      if (refused) throw refused;
    }
    await this.#save(job);
    return new Promise((resolve, reject) => {
      this.#waiters.set(job.id, { resolve, reject, job, opts });
      opts.signal?.addEventListener("abort", () => {
        if (!this.#inflight.has(job.id)) {
          void this.#finish(job, undefined, abortError());
        }
      }, { once: true });
      void this.#attempt(job);
    });
  }

  /** Sends every kept submission of this base URL now (also done by itself). */
  async flush(): Promise<void> {
    if (!this.#store) return;
    const kept = await this.#store.list().catch(() => [] as Job[]);
    kept.sort((a, b) => a.createdAt - b.createdAt);
    for (const job of kept) {
      if (job.baseUrl === this.baseUrl) {
        await this.#attempt(this.#waiters.get(job.id)?.job ?? job);
      }
    }
  }

  /** The submissions kept for this base URL, oldest first. */
  async queued(): Promise<
    { id: string; publicId: string; createdAt: number }[]
  > {
    const kept = await (this.#store?.list() ?? Promise.resolve([]));
    return kept.filter((j) => j.baseUrl === this.baseUrl)
      .sort((a, b) => a.createdAt - b.createdAt)
      .map((j) => ({ id: j.id, publicId: j.publicId, createdAt: j.createdAt }));
  }

  /** Submits a plain HTML form through the client; returns a function that undoes it. */
  enhance(form: HTMLFormElement, opts: EnhanceOptions = {}): () => void {
    return enhanceForm(this, form, opts);
  }

  #emit(e: OutboxEvent): void {
    for (const l of this.#listeners) l(e);
  }

  #save(job: Job): Promise<void> {
    return this.#store?.put(job).catch(() => {}) ?? Promise.resolve();
  }

  async #attempt(job: Job): Promise<void> {
    if (this.#inflight.has(job.id)) return;
    this.#inflight.add(job.id);
    const w = this.#waiters.get(job.id);
    try {
      if (this.#store && globalThis.navigator?.onLine === false) {
        throw networkError(null);
      }
      const result = await sendJob(this.ep, job, {
        policy: this.#policy,
        signal: w?.opts.signal,
        onProgress: w?.opts.onProgress,
        save: (j) => this.#save(j),
        schema: (id, fresh) => this.schema(id, fresh),
      });
      await this.#finish(job, result);
    } catch (err) {
      const e = err instanceof FormwellError ? err : new FormwellError(
        0,
        "client_error",
        String((err as Error)?.message ?? err),
      );
      if (!this.#store || !isTransient(e) || w?.opts.signal?.aborted) {
        await this.#finish(job, undefined, e);
      } else {
        job.attempts++;
        await this.#save(job);
        if (!this.#announced.has(job.id)) {
          this.#announced.add(job.id);
          w?.opts.onQueued?.();
          this.#emit({
            type: "queued",
            id: job.id,
            publicId: job.publicId,
            restored: !w,
            error: e,
          });
        }
        this.#schedule(job.attempts);
      }
    } finally {
      this.#inflight.delete(job.id);
    }
  }

  async #finish(
    job: Job,
    result?: SubmitResult,
    error?: FormwellError,
  ): Promise<void> {
    await this.#store?.remove(job.id).catch(() => {});
    if (error) logRefusal(error, job.publicId);
    const w = this.#waiters.get(job.id);
    this.#waiters.delete(job.id);
    this.#announced.delete(job.id);
    this.#emit({
      type: result ? "sent" : "failed",
      id: job.id,
      publicId: job.publicId,
      restored: !w,
      result,
      error,
    });
    if (result && job.draftId) this.#drafts.forget(job.publicId);
    if (result) w?.resolve(result);
    else w?.reject(error!);
  }

  #schedule(attempts: number): void {
    if (this.#timer) return;
    this.#timer = true;
    this.ep.rt.sleep(backoffMs(attempts, this.#policy, this.ep.rt.random)).then(
      () => {
        this.#timer = false;
        return this.flush();
      },
    );
  }
}
