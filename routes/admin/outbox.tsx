/**
 * The Outbox: mail that would have been sent (no `SMTP_URL`), to whom, when, subject and
 * text, and autoresponses held back by their limits; with SMTP set, the email log
 * (accepted / retrying / failed / suppressed); both for 30 days. Instance owners also see
 * account mail (invitations, password resets), which belongs to no workspace.
 * @module
 */
import { page } from "@/lib/ui/define.ts";
import {
  type EmailLogEntry,
  listEmailLog,
  listOutbox,
  type OutboxMail,
} from "@/lib/notify/outbox.ts";
import { ACCOUNT_OUTBOX } from "@/lib/admin/mail.ts";
import type { Workspace } from "@/lib/schemas.ts";
import { PageHead, Time } from "@/routes/admin/_layout.tsx";
import { allow, defineFor } from "@/routes/admin/_access.ts";

interface Data {
  workspace: Workspace;
  smtp: boolean;
  mails: OutboxMail[];
  log: EmailLogEntry[];
  /** Account mail; null unless the user is an instance owner. */
  account: OutboxMail[] | null;
  accountLog: EmailLogEntry[] | null;
}

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.workspace({ GET: "viewer" });
const define = defineFor(access);

/** GET lists the outbox and the email log. */
export const handler = define.handlers<Data>({
  async GET(ctx) {
    const workspace = ctx.workspace;
    const owner = ctx.state.user.owner;
    const [mails, log, account, accountLog] = await Promise.all([
      listOutbox(ctx.deps, workspace.id),
      listEmailLog(ctx.deps, workspace.id),
      owner ? listOutbox(ctx.deps, ACCOUNT_OUTBOX) : null,
      owner ? listEmailLog(ctx.deps, ACCOUNT_OUTBOX) : null,
    ]);
    const smtp = Boolean(ctx.deps.config.notify.smtpUrl);
    return page({ workspace, smtp, mails, log, account, accountLog }, { title: "Outbox" });
  },
});

function Mails({ mails, label }: { mails: OutboxMail[]; label: string }) {
  if (mails.length === 0) return <p class="muted">Nothing here yet.</p>;
  return (
    <ol class="outbox" aria-label={label}>
      {mails.map((m) => (
        <li class="card">
          <h3>{m.subject}</h3>
          <p class="muted">
            <Time iso={m.at} /> · to {m.to.join(", ")} · from {m.from}
            {m.reply_to && ` · reply to ${m.reply_to}`}
          </p>
          <pre class="mail-text">{m.text}</pre>
        </li>
      ))}
    </ol>
  );
}

function Log({ log, label }: { log: EmailLogEntry[]; label: string }) {
  if (log.length === 0) return <p class="muted">No mail sent yet.</p>;
  return (
    <div class="table-wrap">
      <table class="list stack" aria-label={label}>
        <thead>
          <tr>
            <th>Time</th>
            <th>To</th>
            <th>Subject</th>
            <th>Result</th>
            <th>Detail</th>
          </tr>
        </thead>
        <tbody>
          {log.map((e) => (
            <tr>
              <td data-label="Time">
                <Time iso={e.at} />
              </td>
              <td data-label="To">{e.to.join(", ")}</td>
              <td data-label="Subject">{e.subject}</td>
              <td data-label="Result">
                {e.result}
                {e.attempt > 0 ? ` (attempt ${e.attempt + 1})` : ""}
              </td>
              <td data-label="Detail">{e.detail ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The outbox page. */
export default define.page<typeof handler>(function Outbox({ data }) {
  const { workspace, smtp } = data;
  const held = data.log.filter((e) => e.result === "suppressed");
  return (
    <>
      <PageHead
        title="Outbox"
        sub={smtp
          ? `${workspace.name}: SMTP is set, so mail is sent; below is what was sent and how it went.`
          : `${workspace.name}: no SMTP_URL is set, so mail is not sent. This is what would have been sent.`}
      />
      <p class="muted">
        Kept for 30 days. Erasing a person on the Privacy page removes their mail here too.
      </p>
      {!smtp && (
        <section aria-labelledby="outbox-head">
          <h2 id="outbox-head">Kept mail</h2>
          <Mails mails={data.mails} label="Kept mail" />
        </section>
      )}
      {!smtp && held.length > 0 && (
        <section aria-labelledby="held-head">
          <h2 id="held-head">Held back</h2>
          <p class="muted">Autoresponses the autoresponder's limits kept from being sent.</p>
          <Log log={held} label="Held back" />
        </section>
      )}
      {smtp && (
        <section aria-labelledby="log-head">
          <h2 id="log-head">Email log</h2>
          <Log log={data.log} label="Email log" />
        </section>
      )}
      {data.account && (
        <section aria-labelledby="account-head">
          <h2 id="account-head">Account mail (instance owners only)</h2>
          <p class="muted">Invitations and password resets, which belong to no workspace.</p>
          {smtp
            ? <Log log={data.accountLog ?? []} label="Account mail log" />
            : <Mails mails={data.account} label="Account mail" />}
        </section>
      )}
    </>
  );
});
