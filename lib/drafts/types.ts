/**
 * A stored draft: a visitor's saved progress on a form (leaf: types only).
 * @module
 */

/** A draft as stored under `["drafts", form, id]`. The resume token is kept as a digest only. */
export interface Draft {
  id: string;
  form_id: string;
  workspace_id: string;
  /** Hex SHA-256 of the resume token. */
  token_digest: string;
  /** Field values by name, checked for types and limits (never for `required`). */
  data: Record<string, unknown>;
  /** The step the visitor was on at the last save (1-based position), or null (one page). */
  step: number | null;
  /** The furthest step any save reported, or null. */
  furthest_step: number | null;
  created_at: string;
  updated_at: string;
  /** Epoch ms when the draft is gone: reads refuse it from then, the sweep deletes it. */
  due_at: number;
  /** Digests under which the email index holds it, so every delete removes exactly those. */
  email_digests?: string[];
  /** When a resume link was last mailed (epoch ms). */
  mailed_at?: number;
}

/** What a visitor with the token sees of a draft. */
export interface DraftView {
  data: Record<string, unknown>;
  step: number | null;
  updated_at: string;
  expires_at: string;
}

/** A draft as the Server Data API and the admin list it (never its token). */
export interface DraftListItem {
  id: string;
  data: Record<string, unknown>;
  step: number | null;
  furthest_step: number | null;
  created_at: string;
  updated_at: string;
  expires_at: string;
}
