/**
 * Notification test support: a real SMTP server, a live submission literal, a queue
 * listener running the real job dispatcher, a bounded wait on a condition, and a real
 * webhook receiver.
 * @module
 */
import { SMTPServer } from "smtp-server";
import { type ParsedMail, simpleParser } from "mailparser";
import type { Deps } from "@/lib/deps.ts";
import { dispatch } from "@/lib/jobs/mod.ts";
import type { Form, Submission } from "@/lib/schemas.ts";

let seq = 0;

/** A stored-looking live submission of `form`. */
export function submissionOf(
  form: Form,
  fields: Record<string, unknown>,
  status: Submission["status"] = "completed",
): Submission {
  seq++;
  return {
    id: `sub_01jtest${String(seq).padStart(18, "0")}`,
    form_id: form.id,
    workspace_id: form.workspace_id,
    mode: "live",
    number: seq,
    fields,
    metadata: {},
    status,
    created_at: new Date().toISOString(),
    files: [],
    signals: {},
  };
}

/** Runs the job dispatcher on the KV queue until the KV closes. */
export function runJobs(deps: Deps): Promise<void> {
  return deps.kv.listenQueue((msg) => dispatch(deps, msg));
}

/** Waits until `cond` holds, polling every 20 ms, failing after `ms`. */
export async function waitFor(
  what: string,
  cond: () => boolean | Promise<boolean>,
  ms = 10_000,
): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A real SMTP server on 127.0.0.1: `reply(n)` decides the n-th DATA (0 = accept, else a code). */
export async function smtp(reply: (n: number) => number = () => 0) {
  const mails: ParsedMail[] = [];
  let n = 0;
  const server = new SMTPServer({
    authOptional: true,
    secure: false,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, _session, cb) {
      const code = reply(++n);
      simpleParser(stream).then((m) => {
        if (code) {
          const err = Object.assign(new Error(`refused ${code}`), { responseCode: code });
          return cb(err);
        }
        mails.push(m);
        cb();
      }, cb);
    },
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.server.address() as { port: number }).port;
  return {
    mails,
    calls: () => n,
    url: `smtp://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The recipients of a parsed mail, sorted. */
export function recipients(m: ParsedMail): string[] {
  return [m.to].flat().flatMap((a) => a?.value ?? []).map((v) => v.address ?? "").sort();
}

/** One request a {@linkcode receiver} got. */
export interface Received {
  headers: Record<string, string>;
  body: string;
  answered: number;
}

/** A real receiver on 127.0.0.1: answers `statusFor(n)` to its n-th request (1-based). */
export function receiver(statusFor: (n: number) => number = () => 200) {
  const got: Received[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.text();
    const answered = statusFor(got.length + 1);
    got.push({ headers: Object.fromEntries(req.headers), body, answered });
    return new Response(answered < 300 ? "thanks" : "down", { status: answered });
  });
  return { got, url: `http://127.0.0.1:${server.addr.port}/hook`, close: () => server.shutdown() };
}
