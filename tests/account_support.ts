/**
 * Test support for accounts (team, invitations, resets): an environment whose job runner
 * delivers account mail, the links in that mail, public form posts, and the server log.
 * @module
 */
import assert from "node:assert/strict";
import { listAccountMail } from "@/lib/admin/mail.ts";
import { createUser } from "@/lib/admin/users.ts";
import type { AuditEvent } from "@/lib/privacy/audit.ts";
import { keys } from "@/lib/kv/keys.ts";
import type { Role, Workspace } from "@/lib/schemas.ts";
import type { DepsOverrides } from "@/lib/runtime.ts";
import { FORM_TYPE, PASSWORD } from "./admin_support.ts";
import { type TestEnv, testEnv } from "./helpers.ts";
import { runJobs, waitFor } from "./lib/notify/_support.ts";

/** A test environment with a job runner (account mail goes through jobs). */
export interface AccountEnv extends TestEnv {
  /** Closes the KV and waits for the job runner to end. */
  stop: () => Promise<void>;
}

/** Builds an {@linkcode AccountEnv}: `login` rate limit 1000/min unless `vars` say otherwise. */
export async function accountEnv(
  vars: Record<string, string> = {},
  overrides: DepsOverrides = {},
): Promise<AccountEnv> {
  const env = await testEnv({ RATE_LIMITS: '{"login":1000}', ...vars }, overrides);
  const jobs = runJobs(env.deps);
  return {
    ...env,
    stop: async () => {
      env.close();
      await jobs;
    },
  };
}

/** A clock the test moves; starts at the real time. */
export function clock() {
  let at = Date.now();
  return { now: () => at, advance: (ms: number) => (at += ms) };
}

/** A user with `role` in `ws` (password {@linkcode PASSWORD}). */
export async function member(env: TestEnv, ws: Workspace, email: string, role: Role) {
  return await createUser(env.deps, { email, password: PASSWORD, workspaceIds: [ws.id], role });
}

/**
 * The newest link of a kind (`invite` or `reset`) mailed to `to`, once at least `count`
 * such mails are in the outbox (the job runner delivers them; bounded wait).
 */
export async function mailedLink(
  env: TestEnv,
  to: string,
  kind: "invite" | "reset",
  count = 1,
): Promise<string> {
  const re = new RegExp(`https?://[^/]+(/admin/${kind}/[0-9A-Za-z]{43})`);
  let links: string[] = [];
  await waitFor(`${count} ${kind} mail(s) to ${to}`, async () => {
    const mails = await listAccountMail(env.deps, to);
    links = mails.map((m) => re.exec(m.text)?.[1]).filter((l): l is string => !!l);
    return links.length >= count;
  });
  return links.at(-1)!;
}

/** POSTs a public account form (no session) as a same-origin browser. */
export function postPublic(
  env: TestEnv,
  path: string,
  fields: Record<string, string>,
  cookie = "",
  ip?: string,
) {
  return env.request(path, {
    method: "POST",
    headers: {
      ...FORM_TYPE,
      origin: "http://localhost",
      "sec-fetch-site": "same-origin",
      ...(cookie ? { cookie } : {}),
    },
    body: new URLSearchParams(fields).toString(),
    ip,
  });
}

/** The audit events of a workspace, oldest first. */
export async function auditEvents(env: TestEnv, workspaceId: string): Promise<AuditEvent[]> {
  const out: AuditEvent[] = [];
  for await (const e of env.deps.kv.list<AuditEvent>({ prefix: keys.auditEvents(workspaceId) })) {
    out.push(e.value);
  }
  return out;
}

/** Runs `fn` with `console.log` captured; returns the lines it printed (and restores it). */
export async function captureLog(fn: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  const original = console.log;
  console.log = (...args: unknown[]) => lines.push(args.map(String).join(" "));
  try {
    await fn();
  } finally {
    console.log = original;
  }
  return lines;
}

/** The one labelled account-link line of `lines`, parsed, for `to` (fails if not exactly one). */
export function loggedLink(lines: string[], to: string): Record<string, string> {
  const found = lines.filter((l) => l.includes("account mail not sent")).map((l) => JSON.parse(l))
    .filter((l) => l.to === to);
  assert.equal(found.length, 1, `one logged link for ${to}: ${lines.join("\n")}`);
  return found[0];
}
