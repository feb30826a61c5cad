/**
 * Members of the current workspace and their roles; owners invite by email, change roles,
 * remove members and withdraw invitations. Everyone in the workspace sees the list.
 * @module
 */
import { AppError, errors } from "@/lib/errors.ts";
import { page, type PageResult } from "@/lib/ui/define.ts";
import { createInvite, type InviteView, listInvites, withdrawInvite } from "@/lib/admin/invites.ts";
import { type AccountLink, accountMailGoesTo } from "@/lib/admin/mail.ts";
import { isRole, listMembers, type Member } from "@/lib/admin/members.ts";
import { storeKeyReveal, takeKeyReveal } from "@/lib/admin/key_reveal.ts";
import { changeMember } from "@/lib/admin/team.ts";
import { normalizeEmail } from "@/lib/admin/users.ts";
import { type Role, ROLES, type Workspace } from "@/lib/schemas.ts";
import { ActionButton, Csrf, PageHead } from "./_layout.tsx";
import { field, idField, type WorkspaceContext } from "./_page.ts";
import { allow, defineFor } from "./_access.ts";
import { auditBy } from "./_audit.ts";
import { UnsentInvite } from "./_unsent_invite.tsx";

interface Data {
  workspace: Workspace;
  members: Member[];
  invites: InviteView[];
  /** Whether the viewer of the page may change anything (an owner). */
  manage: boolean;
  /** Whether invitations are emailed (`SMTP_URL` is set). */
  mailed: boolean;
  error?: string;
  /** The invite form's values after a refusal. */
  email?: string;
  role?: Role;
  /** An invitation just made that no mail carried (no SMTP): its link, shown once. */
  unsent?: { email: string; url: string };
  /** The page was opened with a link token that was already shown or expired. */
  gone?: boolean;
}

/** What each role may do, shown beside the invite form. */
const ROLE_HELP: Record<Role, string> = {
  viewer: "sees forms, submissions and analytics; cannot change, delete or export",
  admin: "also edits forms, deletes and exports submissions, manages API keys",
  owner: "also invites and removes members and changes roles",
};

function role(value: string): Role {
  if (!isRole(value)) throw errors.badRequest(`Choose a role: ${ROLES.join(", ")}.`);
  return value;
}

async function load(ctx: WorkspaceContext, workspace: Workspace) {
  const [members, invites] = await Promise.all([
    listMembers(ctx.deps, workspace.id),
    listInvites(ctx.deps, workspace.id),
  ]);
  const mailed = accountMailGoesTo(ctx.deps.config) === "email";
  return { workspace, members, invites, manage: ctx.role === "owner", mailed };
}

/** Invites; with no SMTP the link is kept for one showing to the inviter (post/redirect/get). */
async function invite(
  ctx: WorkspaceContext,
  workspace: Workspace,
): Promise<Response | PageResult<Data>> {
  const email = field(ctx.body, "email");
  const invitedRole = role(field(ctx.body, "role"));
  const invitedBy = ctx.state.user;
  let link: AccountLink;
  try {
    link = await createInvite(
      ctx.deps,
      { workspace, email, role: invitedRole, invitedBy },
      auditBy(ctx),
    );
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    const data = await load(ctx, workspace);
    return page({ ...data, error: err.message, email, role: invitedRole }, {
      status: err.status,
      title: "Members",
    });
  }
  if (accountMailGoesTo(ctx.deps.config) === "email") {
    return ctx.redirect("/admin/members", "invited");
  }
  const token = await storeKeyReveal(ctx.deps, {
    session_user: invitedBy.id,
    workspace_id: workspace.id,
    name: normalizeEmail(email),
    key: link.url,
  });
  return ctx.redirect(`/admin/members?unsent=${token}`);
}

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.workspace({ GET: "viewer", POST: "owner" });
const define = defineFor(access);

/** GET lists; POST `action` = invite | withdraw | role | remove (owners only). */
export const handler = define.handlers<Data>({
  async GET(ctx) {
    const workspace = ctx.workspace;
    const token = ctx.url.searchParams.get("unsent");
    const shown = token
      ? await takeKeyReveal(ctx.deps, token, ctx.state.user.id, workspace.id)
      : null;
    const extra = shown ? { unsent: { email: shown.name, url: shown.key } } : { gone: !!token };
    return page({ ...(await load(ctx, workspace)), ...extra }, { title: "Members" });
  },
  async POST(ctx) {
    const workspace = ctx.workspace;
    const action = field(ctx.body, "action");
    const state = ctx.state;
    if (action === "invite") return await invite(ctx, workspace);
    if (action === "withdraw") {
      const email = field(ctx.body, "email");
      // Longer than any address (RFC 5321): no invitation can have it.
      if (email.length > 320) throw errors.notFound("No such invitation.");
      await withdrawInvite(ctx.deps, { workspaceId: workspace.id, email }, auditBy(ctx));
      return ctx.redirect("/admin/members", "invite_withdrawn");
    }
    const userId = idField(ctx.body, "user_id", "That person is not a member of this workspace.");
    if (action !== "role" && action !== "remove") throw errors.badRequest("Unknown action.");
    try {
      const next = action === "role" ? role(field(ctx.body, "role")) : null;
      await changeMember(ctx.deps, workspace.id, userId, next, auditBy(ctx));
    } catch (err) {
      if (!(err instanceof AppError) || err.status !== 409) throw err;
      const data = await load(ctx, workspace);
      return page({ ...data, error: err.message }, { status: 409, title: "Members" });
    }
    // Removing yourself leaves the workspace: its pages are no longer yours.
    if (action === "remove" && userId === state.user.id) {
      return ctx.redirect("/admin/forms", "member_removed");
    }
    return ctx.redirect("/admin/members", action === "role" ? "role_changed" : "member_removed");
  },
});

function RoleSelect(
  { id, name, value, label }: { id: string; name: string; value: Role | null; label: string },
) {
  return (
    <>
      <label class="visually-hidden" for={id}>{label}</label>
      <select id={id} name={name}>
        {ROLES.map((r) => <option key={r} value={r} selected={r === value}>{r}</option>)}
      </select>
    </>
  );
}

/** The members table, pending invitations and the invite form. */
export default define.page<typeof handler>(function Members({ data, csrf, state }) {
  const { workspace, members, invites, manage } = data;
  // deno-lint-ignore formwell/role-default -- the invite form's first choice, sent by the owner
  const inviteRole = data.role ?? "viewer";
  return (
    <>
      <PageHead
        title="Members"
        sub={`People who can sign in to ${workspace.name}, and what each may do.`}
      />
      {data.error && <p class="notice error" role="alert">{data.error}</p>}
      <UnsentInvite unsent={data.unsent} gone={data.gone} />
      <div class="table-wrap">
        <table class="stack">
          <caption class="visually-hidden">Members of {workspace.name}</caption>
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              {manage && <th scope="col">Remove</th>}
            </tr>
          </thead>
          <tbody>
            {members.map((m) => (
              <tr key={m.user_id}>
                <td data-label="Email">
                  {m.email}
                  {m.user_id === state?.user.id && <span class="muted">(you)</span>}
                </td>
                <td data-label="Role">
                  {manage && !m.instance_owner
                    ? (
                      <form method="post" class="inline">
                        <Csrf token={csrf} />
                        <input type="hidden" name="action" value="role" />
                        <input type="hidden" name="user_id" value={m.user_id} />
                        <RoleSelect
                          id={`role-${m.user_id}`}
                          name="role"
                          value={m.role}
                          label={`Role of ${m.email}`}
                        />
                        <button type="submit" class="secondary small">Change role</button>
                      </form>
                    )
                    : <span>{m.role ?? "none"}{m.instance_owner ? " (instance owner)" : ""}</span>}
                </td>
                {manage && (
                  <td>
                    {!m.instance_owner && (
                      <ActionButton
                        csrf={csrf}
                        action="remove"
                        fields={{ user_id: m.user_id }}
                        label="Remove"
                        kind="danger small"
                        ariaLabel={`Remove ${m.email}`}
                      />
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {manage && (
        <>
          <h2>Pending invitations</h2>
          {invites.length === 0
            ? <p class="muted">No pending invitations.</p>
            : (
              <div class="table-wrap">
                <table class="stack">
                  <thead>
                    <tr>
                      <th scope="col">Email</th>
                      <th scope="col">Role</th>
                      <th scope="col">Link expires</th>
                      <th scope="col">Withdraw</th>
                    </tr>
                  </thead>
                  <tbody>
                    {invites.map((i) => (
                      <tr key={i.hash}>
                        <td data-label="Email">{i.email}</td>
                        <td data-label="Role">{i.role}</td>
                        <td data-label="Link expires">
                          <time datetime={new Date(i.expires_at).toISOString()}>
                            {new Date(i.expires_at).toISOString().slice(0, 16).replace("T", " ")}
                            {" "}
                            UTC
                          </time>
                        </td>
                        <td>
                          <ActionButton
                            csrf={csrf}
                            action="withdraw"
                            fields={{ email: i.email }}
                            label="Withdraw"
                            ariaLabel={`Withdraw the invitation of ${i.email}`}
                          />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          <h2>Invite someone</h2>
          <form method="post" class="card">
            <Csrf token={csrf} />
            <input type="hidden" name="action" value="invite" />
            <label for="invite-email">Email</label>
            <input
              id="invite-email"
              name="email"
              type="email"
              required
              autocomplete="off"
              value={data.email ?? ""}
            />
            <label for="invite-role">Role</label>
            <select id="invite-role" name="role" aria-describedby="invite-roles">
              {ROLES.map((r) => <option key={r} value={r} selected={r === inviteRole}>{r}</option>)}
            </select>
            <ul id="invite-roles" class="muted">
              {ROLES.map((r) => <li key={r}>{r}: {ROLE_HELP[r]}</li>)}
            </ul>
            <p>
              <button type="submit">{data.mailed ? "Send invitation" : "Create invitation"}</button>
            </p>
            <p class="muted">
              {data.mailed
                ? "We email a link that works once, for 7 days."
                : "This server sends no email (it has no SMTP_URL): you get the link to pass " +
                  "on, and it is also in the Outbox and the server log. It works once, for 7 " +
                  "days."}{" "}
              Someone with an account joins with their password; anyone else chooses one.
            </p>
          </form>
        </>
      )}
    </>
  );
});
