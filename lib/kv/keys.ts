/**
 * Every KV key of Formwell. No key literal appears anywhere else.
 * Indexes point to ids; they never copy records.
 * @module
 */

/** Live data comes from browsers and live keys; test data only from test keys. */
export type Mode = "live" | "test";
/** A stored submission status, or "all" for the totals across statuses. */
export type StatusBucket = "completed" | "suspicious" | "spam" | "all";

/** Typed key builders, one doc line each. */
export const keys = {
  /** Instance-wide secret used to sign tokens when `SECRET` is unset. */
  secret: () => ["config", "secret"] as const,
  /** Marker written once the first-start seed ran. */
  seeded: () => ["config", "seeded"] as const,

  /** A workspace record. */
  workspace: (id: string) => ["workspaces", id] as const,
  /** Prefix of all workspaces. */
  workspaces: () => ["workspaces"] as const,

  /** A form record, keyed by its public id. */
  form: (publicId: string) => ["forms", publicId] as const,
  /** Index: forms of a workspace. */
  formByWorkspace: (workspaceId: string, publicId: string) =>
    ["forms_by_workspace", workspaceId, publicId] as const,
  /** Prefix of the forms of a workspace. */
  formsByWorkspace: (workspaceId: string) => ["forms_by_workspace", workspaceId] as const,
  /** Index: a form's `key` (its slug, unique in the workspace) to its public id. */
  formByKey: (workspaceId: string, key: string) => ["forms_by_key", workspaceId, key] as const,

  /** A submission record; what a form owns sits under it. */
  submission: (formId: string, id: string) => ["submissions", formId, id] as const,
  /** Prefix of all submissions of a form (both modes). */
  submissions: (formId: string) => ["submissions", formId] as const,
  /**
   * A submission's verdict once the scoring job scored it or an admin re-labelled it (status,
   * `spam`, `scored_at`): it overrides the record's, which is written once
   * (lib/submissions/records.ts).
   */
  submissionVerdict: (formId: string, id: string) => ["submission_verdicts", formId, id] as const,
  /** Prefix of the verdicts of a form's submissions. */
  submissionVerdicts: (formId: string) => ["submission_verdicts", formId] as const,
  /**
   * Index: submissions of a form and mode by number (newest-first walks). The value is the
   * submission's scoring mark (id, sender identity, a digest of its values, time), so the
   * spam scorer reads its context from here without whole records.
   */
  submissionByNumber: (formId: string, mode: Mode, n: number) =>
    ["submissions_by_number", formId, mode, n] as const,
  /** Prefix of the number index. */
  submissionsByNumber: (formId: string, mode: Mode) =>
    ["submissions_by_number", formId, mode] as const,
  /** Index: submissions of a form and mode by status, then number. */
  submissionByStatus: (formId: string, mode: Mode, status: StatusBucket, n: number) =>
    ["submissions_by_status", formId, mode, status, n] as const,
  /** Prefix of the status index. */
  submissionsByStatus: (formId: string, mode: Mode, status: StatusBucket) =>
    ["submissions_by_status", formId, mode, status] as const,
  /** Last submission number issued for a form and mode. */
  submissionSeq: (formId: string, mode: Mode) => ["submission_seq", formId, mode] as const,
  /** Counter (KvU64): submissions of a form, mode and status bucket. */
  submissionCount: (formId: string, mode: Mode, bucket: StatusBucket) =>
    ["submission_counts", formId, mode, bucket] as const,
  /** Counter (KvU64): submissions per block of numbers, to skip pages without scanning. */
  submissionBlock: (formId: string, mode: Mode, bucket: StatusBucket, block: number) =>
    ["submission_blocks", formId, mode, bucket, block] as const,
  /** Prefix of the block counters. */
  submissionBlocks: (formId: string, mode: Mode, bucket: StatusBucket) =>
    ["submission_blocks", formId, mode, bucket] as const,
  /** Counter (KvU64): submissions per UTC day and status bucket (range totals). */
  submissionDaily: (formId: string, mode: Mode, bucket: StatusBucket, day: string) =>
    ["submission_daily", formId, mode, bucket, day] as const,
  /** Prefix of the daily submission counters. */
  submissionDailies: (formId: string, mode: Mode, bucket: StatusBucket) =>
    ["submission_daily", formId, mode, bucket] as const,

  // --- the search index (lib/search): a short prefix, since a commit writes one per token ---
  /**
   * Index: the submissions of one commit holding a search token (a word, `@address`,
   * `@@domain` or `#id`), `first` the smallest number written; the value (Uint8Array) packs
   * each one's number, day, status and the characters the token shares with the
   * submission's previous token (lib/search/postings.ts).
   */
  word: (formId: string, mode: Mode, token: string, first: number) =>
    ["words", formId, mode, token, first] as const,
  /** Prefix of a form and mode's search index (also: of one token, with the token added). */
  words: (formId: string, mode: Mode) => ["words", formId, mode] as const,
  /**
   * Counter (KvU64): submissions holding `token` that share `shared` characters with their
   * previous token (lib/search/tokens.ts sharedWithPrevious): exact totals of a prefix.
   */
  wordCount: (formId: string, mode: Mode, token: string, shared: number) =>
    ["word_counts", formId, mode, token, shared] as const,
  /** Prefix of a form and mode's token counters. */
  wordCounts: (formId: string, mode: Mode) => ["word_counts", formId, mode] as const,

  /** Counter (KvU64): live submissions a workspace received in a UTC month (plan quota). */
  monthlySubmissions: (workspaceId: string, month: string) =>
    ["submissions_monthly", workspaceId, month] as const,

  /** An idempotency record, scoped to form and mode. */
  idempotency: (formId: string, mode: Mode, key: string) =>
    ["idempotency", formId, mode, key] as const,

  /** Rate-limit state (GCRA theoretical arrival time) of one identity on one route. */
  rateLimit: (route: string, identity: string) => ["rate_limits", route, identity] as const,

  /** Counter (KvU64): analytics events of a form per UTC day and kind. */
  analytics: (formId: string, mode: Mode, day: string, kind: string) =>
    ["analytics", formId, mode, day, kind] as const,
  /** Prefix of a form's analytics in one mode. */
  analyticsOf: (formId: string, mode: Mode) => ["analytics", formId, mode] as const,
  /** Marker: a session's event of one kind was counted for a form on a UTC day. */
  analyticsSession: (formId: string, day: string, kind: string, sessionId: string) =>
    ["analytics_sessions", formId, day, kind, sessionId] as const,

  /** An API key record. */
  apiKey: (id: string) => ["api_keys", id] as const,
  /** Index: API key id and workspace id by the SHA-256 hex digest of the raw key. */
  apiKeyByHash: (hash: string) => ["api_keys_by_hash", hash] as const,
  /** Index: API keys of a workspace. */
  apiKeyByWorkspace: (workspaceId: string, id: string) =>
    ["api_keys_by_workspace", workspaceId, id] as const,
  /** Bumped by every key create and revoke of a workspace (serialises the cap check). */
  apiKeysVersion: (workspaceId: string) => ["api_keys_version", workspaceId] as const,
  /** Prefix of the API keys of a workspace. */
  apiKeysByWorkspace: (workspaceId: string) => ["api_keys_by_workspace", workspaceId] as const,

  /** An admin user. */
  user: (id: string) => ["users", id] as const,
  /** Prefix of all users. */
  users: () => ["users"] as const,
  /** Index: user id by lower-cased email. */
  userByEmail: (email: string) => ["users_by_email", email] as const,
  /** An admin session, keyed by the SHA-256 of its cookie value. */
  session: (hash: string) => ["sessions", hash] as const,

  /** A spent CAPTCHA token or ALTCHA solution (by digest), so none is accepted twice. */
  spentCaptcha: (digest: string) => ["captcha_spent", digest] as const,
  /** Recent CAPTCHA/honeypot failure times of one client identity (repeat-offender signal). */
  protectionFailures: (identity: string) => ["protection_failures", identity] as const,

  /** An upload grant, keyed by its storage path. */
  uploadGrant: (path: string) => ["upload_grants", path] as const,
  /** Prefix of all upload grants (cleanup sweep). */
  uploadGrants: () => ["upload_grants"] as const,
  /** Index: cleanup looks at this upload path at `checkAt` (epoch ms); also set on delete. */
  uploadPending: (checkAt: number, path: string) => ["upload_pending", checkAt, path] as const,
  /** Prefix of the grant cleanup index (the sweep walks it up to now). */
  uploadsPending: () => ["upload_pending"] as const,
  /** Counter (KvU64): bytes of storage a workspace holds or has reserved. */
  storageUsed: (workspaceId: string) => ["storage_used", workspaceId] as const,

  /** Where a queue message lands when every delivery attempt failed. */
  undelivered: (jobId: string) => ["undelivered_jobs", jobId] as const,
  /** Prefix of undelivered jobs. */
  undeliveredJobs: () => ["undelivered_jobs"] as const,
  /**
   * Counter (KvU64): bytes of a client's unattached upload grants in a workspace that fall
   * due in ten-minute span `bucket` (uploads/pool.ts); spans first, so the sweep walks them.
   */
  uploadPool: (bucket: number, workspaceId: string, identity: string) =>
    ["upload_pool", bucket, workspaceId, identity] as const,
  /** Prefix of every pending-pool counter. */
  uploadPools: () => ["upload_pool"] as const,
  /** Failed sign-ins of one email (by HMAC of the normalised email), whether or not it has an account. */
  signInFailures: (emailDigest: string) => ["signin_failures", emailDigest] as const,
  /** Failed sign-ins of one browser carrying a device cookie (by HMAC of its nonce). */
  deviceSignInFailures: (deviceId: string) => ["device_signin_failures", deviceId] as const,
  // --- data lifecycle and privacy ---
  /** Index: a submission by the HMAC digest of an email value it holds (erase/export by person). */
  submissionByEmail: (
    workspaceId: string,
    digest: string,
    mode: Mode,
    formId: string,
    id: string,
  ) => ["submissions_by_email", workspaceId, digest, mode, formId, id] as const,
  /** Prefix of the email index for one person in a workspace and mode. */
  submissionsByEmail: (workspaceId: string, digest: string, mode: Mode) =>
    ["submissions_by_email", workspaceId, digest, mode] as const,
  /** A privacy job record (erasure by email): status and progress per form. */
  privacyJob: (id: string) => ["privacy_jobs", id] as const,
  /** An audit event of a workspace; ids sort by time (append-only, kept 400 days). */
  auditEvent: (workspaceId: string, id: string) => ["audit", workspaceId, id] as const,
  /** Prefix of a workspace's audit events. */
  auditEvents: (workspaceId: string) => ["audit", workspaceId] as const,
  /** A pending invitation, keyed by the SHA-256 of its link token. */
  invite: (hash: string) => ["invites", hash] as const,
  /** Index: the pending invitation of an email to a workspace (its token hash). */
  inviteByWorkspace: (workspaceId: string, email: string) =>
    ["invites_by_workspace", workspaceId, email] as const,
  /** Prefix of a workspace's pending invitations. */
  invitesByWorkspace: (workspaceId: string) => ["invites_by_workspace", workspaceId] as const,
  /** A password reset, keyed by the SHA-256 of its link token. */
  passwordReset: (hash: string) => ["password_resets", hash] as const,
  /** Index: a user's newest password reset (its token hash and time). */
  passwordResetByUser: (userId: string) => ["password_resets_by_user", userId] as const,
  // --- the job table and the verdict's per-form edit stamp ---
  /** Job table (`JOBS=table`): a job due at `dueAt` (epoch ms; a leased job: its lease end). */
  jobDue: (dueAt: number, jobId: string) => ["jobs_due", dueAt, jobId] as const,
  /** Prefix of the job table (claims walk it up to now). */
  jobsDue: () => ["jobs_due"] as const,
  /**
   * Stamp of a form and mode's submission edits: every commit changing an existing
   * submission (status, delete, the scoring job's verdict) sets it, so a job's verdict commit
   * checks it once.
   */
  submissionEdits: (formId: string, mode: Mode) => ["submission_edits", formId, mode] as const,
  // --- admin UI ---
  /** A just-created API key's raw value, read once by the keys page (expires in minutes). */
  keyReveal: (token: string) => ["admin_key_reveal", token] as const,
  /** Prefix of every reveal entry (never backed up). */
  keyReveals: () => ["admin_key_reveal"] as const,
  /** A submission an admin of its workspace has opened (read/unread; shared by the team). */
  submissionRead: (formId: string, id: string) => ["submission_read", formId, id] as const,
  /** Prefix of a form's read marks (swept with the form). */
  submissionsRead: (formId: string) => ["submission_read", formId] as const,
  /** Prefix of a form's status counters in one mode (swept when the form is deleted). */
  submissionCountsOf: (formId: string, mode: Mode) => ["submission_counts", formId, mode] as const,
  /** Prefix of a form's block counters in one mode (swept when the form is deleted). */
  submissionBlocksOf: (formId: string, mode: Mode) => ["submission_blocks", formId, mode] as const,
  /** Prefix of a form's daily counters in one mode (swept when the form is deleted). */
  submissionDailiesOf: (formId: string, mode: Mode) => ["submission_daily", formId, mode] as const,
  /** Prefix of a form's idempotency records in one mode (swept when the form is deleted). */
  idempotencyOf: (formId: string, mode: Mode) => ["idempotency", formId, mode] as const,

  // --- notifications (lib/notify) ---
  /** A webhook endpoint of a workspace. */
  webhook: (id: string) => ["webhooks", id] as const,
  /** Index: webhook endpoints of a workspace. */
  webhookByWorkspace: (workspaceId: string, id: string) =>
    ["webhooks_by_workspace", workspaceId, id] as const,
  /**
   * What each of a workspace's webhooks listens to (events, forms), kept in one value by
   * every change of them: a final verdict's commit checks it, to skip notifying when no one
   * listens.
   */
  webhookListeners: (workspaceId: string) => ["webhook_listeners", workspaceId] as const,
  /** Prefix of a workspace's webhook endpoints. */
  webhooksByWorkspace: (workspaceId: string) => ["webhooks_by_workspace", workspaceId] as const,
  /** One logged delivery attempt of an endpoint (ids sort by time). */
  webhookDelivery: (webhookId: string, id: string) =>
    ["webhook_deliveries", webhookId, id] as const,
  /** Prefix of an endpoint's delivery log. */
  webhookDeliveries: (webhookId: string) => ["webhook_deliveries", webhookId] as const,
  /** One chunk of a stored notification event (payload and form, expiring). */
  notifyEventChunk: (eventId: string, i: number) => ["notify_events", eventId, i] as const,
  /** Prefix of a stored notification event's chunks. */
  notifyEvent: (eventId: string) => ["notify_events", eventId] as const,
  /**
   * Index (expiring with the copies): an event stored about a submission, so erasing the
   * submission's person finds what notifications kept about it.
   */
  eventBySubmission: (submissionId: string, eventId: string) =>
    ["notify_events_by_submission", submissionId, eventId] as const,
  /** Prefix of the events stored about a submission. */
  eventsBySubmission: (submissionId: string) =>
    ["notify_events_by_submission", submissionId] as const,
  /**
   * Index (expiring with the copy): a copy an event left, by the copy's own key (an outbox
   * mail, an email log entry, a delivery log entry): `["notify_copies", eventId, ...copy]`.
   */
  notifyCopy: (eventId: string, copy: Deno.KvKey) => ["notify_copies", eventId, ...copy] as const,
  /** Prefix of the copies an event left. */
  notifyCopies: (eventId: string) => ["notify_copies", eventId] as const,
  /**
   * A delivery job chain's attempt record (which attempt runs or ran last, and who holds
   * it), so each attempt logs and enqueues its retry once (lib/notify/chains.ts).
   */
  webhookChain: (webhookId: string, chainId: string) =>
    ["webhook_chains", webhookId, chainId] as const,
  /** Prefix of an endpoint's chain records. */
  webhookChains: (webhookId: string) => ["webhook_chains", webhookId] as const,
  /** An email that would have been sent with no SMTP configured. */
  outboxMail: (workspaceId: string, id: string) => ["outbox", workspaceId, id] as const,
  /** Prefix of a workspace's outbox. */
  outbox: (workspaceId: string) => ["outbox", workspaceId] as const,
  /** One entry of a workspace's email log (sent, accepted or failed). */
  emailLogEntry: (workspaceId: string, id: string) => ["email_log", workspaceId, id] as const,
  /** Prefix of a workspace's email log. */
  emailLog: (workspaceId: string) => ["email_log", workspaceId] as const,
  /** When a form last autoresponded to a normalised address (by digest), and for which event. */
  autoresponderAddress: (formId: string, addressDigest: string) =>
    ["autoresponder_addresses", formId, addressDigest] as const,
  /** A form's autoresponse send times of the last hour (lib/notify/autoresponder.ts). */
  autoresponderFormSends: (formId: string) => ["autoresponder_form_sends", formId] as const,
  /** A workspace's autoresponse send times of the last hour. */
  autoresponderWorkspaceSends: (workspaceId: string) =>
    ["autoresponder_workspace_sends", workspaceId] as const,
  // --- the event feed (lib/feed) ---
  /** Last position of a workspace and mode's event feed; every commit appending events checks it. */
  feedSeq: (workspaceId: string, mode: Mode) => ["feed_seq", workspaceId, mode] as const,
  /** One event of a workspace and mode's feed, at its position (commit order; kept 30 days). */
  feedEvent: (workspaceId: string, mode: Mode, seq: number) =>
    ["feed_events", workspaceId, mode, seq] as const,
  /** Prefix of a workspace and mode's feed. */
  feedEvents: (workspaceId: string, mode: Mode) => ["feed_events", workspaceId, mode] as const,
  /** A deleted submission's record, kept with the feed so its events still carry its data. */
  feedRecord: (formId: string, submissionId: string) =>
    ["feed_records", formId, submissionId] as const,
  /** Prefix of a form's kept records of deleted submissions (swept with the form). */
  feedRecords: (formId: string) => ["feed_records", formId] as const,
  // --- importers (lib/imports) ---
  /**
   * An imported row, by the HMAC of form, format and the row's content (and its repeat
   * count): the submission it became, so importing the same file again imports nothing.
   */
  importedRow: (formId: string, digest: string) => ["imported_rows", formId, digest] as const,
  /** Prefix of a form's imported-row marks (swept with the form). */
  importedRows: (formId: string) => ["imported_rows", formId] as const,
  // --- learning from admins (lib/spam/learn.ts) ---
  /** A workspace's own token statistics from its admins' labels (one bounded record). */
  spamStats: (workspaceId: string) => ["spam_stats", workspaceId] as const,
  /** What a submission's label taught its workspace (label and tokens), to un-learn exactly. */
  spamLearned: (workspaceId: string, submissionId: string) =>
    ["spam_learned", workspaceId, submissionId] as const,

  // --- drafts (lib/drafts) ---
  /** A visitor's saved progress on a form (its resume token only as a digest). */
  draft: (formId: string, id: string) => ["drafts", formId, id] as const,
  /** Prefix of a form's drafts (both the admin list and the form's delete walk it). */
  drafts: (formId: string) => ["drafts", formId] as const,
  /** Index: a draft falls due for removal at `at` (epoch ms); the expiry sweep walks it. */
  draftDue: (at: number, formId: string, id: string) => ["drafts_due", at, formId, id] as const,
  /** Prefix of the draft expiry index. */
  draftsDue: () => ["drafts_due"] as const,
  /** Index: a draft by the HMAC digest of an email value it holds (erase/export by person). */
  draftByEmail: (workspaceId: string, digest: string, formId: string, id: string) =>
    ["drafts_by_email", workspaceId, digest, formId, id] as const,
  /** Prefix of the draft email index for one person in a workspace. */
  draftsByEmail: (workspaceId: string, digest: string) =>
    ["drafts_by_email", workspaceId, digest] as const,
  /**
   * Index: a resume-link mail (its copies are under `notify_copies` by `mailId`) by the
   * HMAC digest of the address it went to (erase/export by person).
   */
  resumeMailByEmail: (workspaceId: string, digest: string, formId: string, mailId: string) =>
    ["resume_mails_by_email", workspaceId, digest, formId, mailId] as const,
  /** Prefix of the resume-mail index for one address in a workspace. */
  resumeMailsByEmail: (workspaceId: string, digest: string) =>
    ["resume_mails_by_email", workspaceId, digest] as const,
  /** Send times of the last hour of mail visitors asked for (resume links), instance-wide. */
  visitorMailSends: () => ["visitor_mail_sends"] as const,

  /** The last backup the CLI wrote (time, file, size, what it holds), for the System page. */
  lastBackup: () => ["backups", "last"] as const,
};
