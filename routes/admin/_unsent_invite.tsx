/**
 * The members page's answer to an invitation no mail carried (no `SMTP_URL`): its link, once,
 * for the inviter to pass on, and where else it is.
 * @module
 */
import { Island } from "@/lib/ui/island.tsx";
import CopyButton from "@/islands/CopyButton.tsx";

/**
 * The link of an invitation just made (`unsent`), or, when the page was opened again
 * (`gone`), where to find it.
 */
export function UnsentInvite(
  { unsent, gone }: { unsent?: { email: string; url: string }; gone?: boolean },
) {
  if (gone) {
    return (
      <p class="notice" role="status">
        That invitation link was shown once already. Find it in the Outbox or the server log.
      </p>
    );
  }
  if (!unsent) return null;
  const { email, url } = unsent;
  return (
    <div class="notice ok reveal" role="status">
      <p>
        <strong>Invitation created for {email}, but not emailed:</strong>{" "}
        this server sends no email (it has no SMTP_URL). The link is also in the Outbox and the
        server log. Send it to {email} yourself; it works once, for 7 days.
      </p>
      <div class="key-line">
        <code class="key" id="invite-link">{url}</code>{" "}
        <Island name="CopyButton" component={CopyButton} props={{ text: url }} />
      </div>
    </div>
  );
}
