/// <reference lib="dom" />
/**
 * Drafts: a visitor's saved progress on a form that keeps drafts. `save` starts a draft or
 * saves the one this browser holds (its resume token is kept in localStorage, else in
 * memory); `resume` reads it back, from a token given, a `?resume=` link or the stored one.
 * A save that cannot reach the service waits, like a submit in the outbox, and goes when
 * the browser is back online (only the latest values of a form: a draft is replaced whole).
 * @module
 */
import { FormwellError } from "./errors.ts";
import { type Endpoint, send } from "./http.ts";

/** What a save answered. `queued`: kept, to be sent once the service can be reached. */
export interface DraftSaved {
  draftId: string | null;
  resumeToken: string | null;
  expiresAt: string | null;
  queued: boolean;
}

/** A draft read back. */
export interface ResumedDraft {
  draftId: string;
  resumeToken: string;
  data: Record<string, unknown>;
  /** The step's 1-based position, or null. */
  step: number | null;
  updatedAt: string;
  expiresAt: string;
}

/** Options of one save. */
export interface SaveDraftOptions {
  /** The step the visitor is on (1-based position), for forms with steps. */
  step?: number;
  /** The draft's resume token (default: the one this browser keeps for the form). */
  resumeToken?: string;
}

interface Pending {
  data: Record<string, unknown>;
  step?: number;
}

/** The draft id a resume token names (`<draft id>.<secret>`). */
export function draftIdOf(token: string): string {
  return token.split(".")[0];
}

function storage(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

/** Drafts of one client (one base URL). */
export class Drafts {
  #ep: Endpoint;
  #keep: boolean;
  #tokens = new Map<string, string>();
  #pending = new Map<string, Pending>();
  #sending = new Map<string, Promise<DraftSaved>>();

  /** `keep`: hold saves that cannot be sent yet (the client's outbox setting). */
  constructor(ep: Endpoint, keep: boolean) {
    // A draft's credential is its token, never an API key.
    this.#ep = { ...ep, apiKey: undefined };
    this.#keep = keep;
    if (keep) globalThis.addEventListener?.("online", () => void this.flush());
  }

  #key(publicId: string, what: "token" | "pending"): string {
    return `formwell:draft-${what}:${this.#ep.baseUrl}:${publicId}`;
  }

  /** The resume token this browser keeps for a form, if any. */
  token(publicId: string): string | null {
    return this.#tokens.get(publicId) ??
      storage()?.getItem(this.#key(publicId, "token")) ?? null;
  }

  #remember(publicId: string, token: string | null): void {
    if (token) this.#tokens.set(publicId, token);
    else this.#tokens.delete(publicId);
    try {
      if (token) storage()?.setItem(this.#key(publicId, "token"), token);
      else storage()?.removeItem(this.#key(publicId, "token"));
    } catch {
      // storage full or off: the token lives in memory
    }
  }

  #hold(publicId: string, p: Pending | null): void {
    if (p) this.#pending.set(publicId, p);
    else this.#pending.delete(publicId);
    try {
      if (p) {
        storage()?.setItem(this.#key(publicId, "pending"), JSON.stringify(p));
      } else storage()?.removeItem(this.#key(publicId, "pending"));
    } catch {
      // kept in memory only
    }
  }

  #path(publicId: string, draftId?: string): string {
    const base = `/api/v1/forms/p/${encodeURIComponent(publicId)}/drafts`;
    return draftId ? `${base}/${encodeURIComponent(draftId)}` : base;
  }

  /** Saves `data` as the form's draft; starts one when there is none (or it expired). */
  save(
    publicId: string,
    data: Record<string, unknown>,
    opts: SaveDraftOptions = {},
  ): Promise<DraftSaved> {
    if (opts.resumeToken) this.#remember(publicId, opts.resumeToken);
    // Saves of one form go one after another, so a start is never made twice.
    const prior = this.#sending.get(publicId) ?? Promise.resolve(null);
    const next = prior.catch(() => null).then(() =>
      this.#send(publicId, { data, step: opts.step })
    );
    this.#sending.set(publicId, next);
    return next;
  }

  async #send(publicId: string, p: Pending): Promise<DraftSaved> {
    const token = this.token(publicId);
    const body = { data: p.data, ...(p.step ? { step: p.step } : {}) };
    try {
      if (token) {
        try {
          const saved = await send<{ expires_at: string }>(this.#ep, {
            method: "PUT",
            path: this.#path(publicId, draftIdOf(token)),
            headers: { authorization: `Bearer ${token}` },
            body,
          });
          this.#hold(publicId, null);
          return {
            draftId: draftIdOf(token),
            resumeToken: token,
            expiresAt: saved.expires_at,
            queued: false,
          };
        } catch (err) {
          if ((err as FormwellError).status !== 404) throw err;
          this.#remember(publicId, null); // expired or submitted: start afresh
        }
      }
      const started = await send<
        { draft_id: string; resume_token: string; expires_at: string }
      >(
        this.#ep,
        { method: "POST", path: this.#path(publicId), body },
      );
      this.#remember(publicId, started.resume_token);
      this.#hold(publicId, null);
      return {
        draftId: started.draft_id,
        resumeToken: started.resume_token,
        expiresAt: started.expires_at,
        queued: false,
      };
    } catch (err) {
      const e = err as FormwellError;
      if (!this.#keep || e.status !== 0) throw err;
      this.#hold(publicId, p);
      return {
        draftId: token ? draftIdOf(token) : null,
        resumeToken: token,
        expiresAt: null,
        queued: true,
      };
    }
  }

  /** Sends the saves that waited (also done when the browser comes back online). */
  async flush(): Promise<void> {
    const s = storage();
    const prefix = `formwell:draft-pending:${this.#ep.baseUrl}:`;
    for (let i = 0; s && i < s.length; i++) {
      const k = s.key(i);
      if (!k?.startsWith(prefix)) continue;
      const id = k.slice(prefix.length);
      if (!this.#pending.has(id)) {
        try {
          this.#pending.set(id, JSON.parse(s.getItem(k) ?? "null"));
        } catch {
          s.removeItem(k);
        }
      }
    }
    for (const [publicId, p] of [...this.#pending]) {
      if (p) {
        await this.save(publicId, p.data, { step: p.step }).catch(() => {});
      }
    }
  }

  /**
   * The form's draft: from `token`, else a `?resume=` in the page's address (then removed
   * from it), else the one this browser keeps; null when there is none or it expired.
   */
  async resume(publicId: string, token?: string): Promise<ResumedDraft | null> {
    let t = token ?? null;
    if (!t && typeof location === "object") {
      const url = new URL(location.href);
      t = url.searchParams.get("resume");
      if (t) {
        url.searchParams.delete("resume");
        history.replaceState(history.state, "", url.toString());
      }
    }
    t ??= this.token(publicId);
    if (!t) return null;
    try {
      const d = await send<
        {
          data: Record<string, unknown>;
          step: number | null;
          updated_at: string;
          expires_at: string;
        }
      >(
        this.#ep,
        {
          path: this.#path(publicId, draftIdOf(t)),
          headers: { authorization: `Bearer ${t}` },
        },
      );
      this.#remember(publicId, t);
      return {
        draftId: draftIdOf(t),
        resumeToken: t,
        data: d.data,
        step: d.step,
        updatedAt: d.updated_at,
        expiresAt: d.expires_at,
      };
    } catch (err) {
      if ((err as FormwellError).status !== 404) throw err;
      if (t === this.token(publicId)) this.#remember(publicId, null);
      return null;
    }
  }

  /** Mails a resume link for the form's draft to `email` (at most one per 10 minutes). */
  async mailLink(publicId: string, email: string): Promise<void> {
    const t = this.token(publicId);
    if (!t) {
      throw new FormwellError(404, "not_found", "No draft to send a link for.");
    }
    await send(this.#ep, {
      method: "POST",
      path: `${this.#path(publicId, draftIdOf(t))}/resume-link`,
      headers: { authorization: `Bearer ${t}` },
      body: { email },
    });
  }

  /** Forgets the form's draft (its submission was stored, or the visitor started over). */
  forget(publicId: string): void {
    this.#remember(publicId, null);
    this.#hold(publicId, null);
  }
}
