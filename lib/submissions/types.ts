/**
 * Shared types of the submit path: who submits (the context every stage reads), what the
 * writer stores and answers, and the writer's port that `Deps` names.
 * @module
 */
import type { KeyAuth } from "@/lib/keys/types.ts";
import type { Mode } from "@/lib/kv/keys.ts";
import type { LimitSpend } from "@/lib/ratelimit/types.ts";
import type { AskedLanguage, ValueSource } from "@/lib/forms/validator.ts";
import type { MultipartFile } from "@/lib/http/multipart.ts";
import type { Field, Form, SubmissionSignals, Workspace } from "@/lib/schemas.ts";

/** Who is submitting and from where. */
export interface SubmitContext {
  formId: string;
  auth: KeyAuth | null;
  ip: string;
  identity: string;
  origin: string | null;
  userAgent: string | null;
  idempotencyKey?: string;
  /** What the key is compared on when not `data` (a multipart post: files by name and size). */
  payloadHash?: string;
  source: ValueSource;
  /** The languages the request asks for (`?lang=`, `Accept-Language`): of the 422 messages. */
  language?: AskedLanguage;
  /** Called with the form once submit has read it live (CORS grants from that read). */
  onForm?: (form: Form) => void;
  /** A form post's owner-email subject and reply-to (`_subject`, `_replyto`). */
  ownerMail?: OwnerMail;
  /** Whether a form post filled a conventional honeypot (`_gotcha`, `bot-field`). */
  trapped?: boolean;
}

/** What a form post asks of the owner's notification email (stored with the submission). */
export interface OwnerMail {
  /** One header-safe line of at most 200 characters. */
  subject?: string;
  /** A single plain address. */
  reply_to?: string;
}

/** A file part of a multipart post, for a file-like field. */
export interface PostedFile {
  field: Field;
  file: MultipartFile;
  /** The field's limit on this workspace; `file.bytes` is null when the file exceeds it. */
  maxBytes: number;
}

/** Everything needed to store one submission. */
export interface SubmissionDraft {
  form: Form;
  workspace: Workspace;
  mode: Mode;
  fields: Record<string, unknown>;
  metadata: Record<string, unknown>;
  files: string[];
  signals: SubmissionSignals;
  /** The post's owner-email overrides, kept apart from the data. */
  ownerMail?: OwnerMail;
  idempotency?: {
    key: string;
    hash: string;
    /**
     * The versionstamp of the form's sequence in the snapshot where the request found no
     * live record under the key. Records are written only by sequence-moving commits, so
     * when every commit since is this writer's own (none wrote the key), the writer need
     * not read the record again.
     */
    seenAt?: string | null;
  };
  limits: LimitSpend[];
  /** Approximate stored size in bytes (for batch sizing). */
  size: number;
  /** Other folders' writes in the same commit (spent CAPTCHA tokens, attached files). */
  parts?: CommitPart[];
}

/**
 * One concern's writes in a submission's commit, owned by the folder of that concern.
 * `apply` is called on every attempt (reading afresh what it checks, except where the
 * part says otherwise) and may throw an AppError to refuse this submission alone; it adds
 * at most `checks` checks to the operation.
 */
export interface CommitPart {
  checks: number;
  apply: (op: Deno.AtomicOperation, submissionId: string) => Promise<void>;
}

/** The 201 body of an accepted submission. */
export interface CreatedBody {
  success: true;
  submission_id: string;
  submission_number: number;
}

/** What a write produced: a new submission or the replay of an earlier one. */
export type WriteOutcome = { replayed: false; body: CreatedBody } | {
  replayed: true;
  body: CreatedBody;
};

/** The per-process group committer of submissions (submissions/writer.ts). */
export interface SubmissionWriterPort {
  /** Queues a submission; resolves once it is durably stored (or replayed). */
  write(draft: SubmissionDraft): Promise<WriteOutcome>;
  /** Commits made, submissions stored and conflicts met, for tests and benchmarks. */
  readonly stats: { commits: number; submissions: number; conflicts: number };
  /**
   * Says the workspace's spam statistics changed (an admin's label was learned here): its
   * next verdicts read them again (other processes' within MODEL_TTL_MS, writer.ts).
   */
  learned(workspaceId: string): void;
}
