/**
 * The admin's page context and helpers: each page module exports its `access`
 * (routes/admin/_access.ts), `handler = define.handlers({...})` and
 * `default = define.page<typeof handler>(...)` (lib/ui/define.ts); handlers answer with
 * `page(data)` or a redirect.
 * @module
 */
import { createDefine, type Define } from "@/lib/ui/define.ts";
import type { Context } from "hono";
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { isPlausibleId } from "@/lib/http/validation.ts";
import type { AppEnv } from "@/lib/http/http.ts";
import type { Form, Role, User, Workspace } from "@/lib/schemas.ts";
import type { Session } from "@/lib/admin/sessions.ts";
import { atLeast, roleIn } from "@/lib/admin/members.ts";

/** Who is signed in and which workspace they look at. */
export interface AdminState {
  user: User;
  session: Session;
  /** The raw session cookie value (to update the session; never rendered). */
  token: string;
  /** The current workspace; null when the user has none yet. */
  workspace: Workspace | null;
  /** Every workspace the user may switch to. */
  workspaces: Workspace[];
  /** The user's role in the current workspace (null without one). */
  role: Role | null;
  /** Webhook endpoints of the current workspace that delivery disabled (410, 5 days failing). */
  disabledWebhooks?: number;
}

/** What a page handler works with (a public page's: nobody need be signed in). */
export interface PageContext {
  deps: Deps;
  c: Context<AppEnv>;
  url: URL;
  params: Record<string, string>;
  /** Null only on public pages (sign-in). */
  state: AdminState | null;
  /** The posted form fields (POST only; CSRF already verified). */
  body: URLSearchParams;
  /** A 303 redirect to an admin path, optionally carrying a notice from {@linkcode NOTICES}. */
  redirect: (to: string, notice?: keyof typeof NOTICES) => Response;
}

/** The context of a page that needs a session (signed in, or instance owner). */
export interface SignedInContext extends PageContext {
  state: AdminState;
}

/** The context of a workspace page: the current workspace and the user's role in it. */
export interface WorkspaceContext extends SignedInContext {
  workspace: Workspace;
  /** At least the role the page's access asks for this request. */
  role: Role;
}

/** The context of a form page: the `:id` form, its workspace and the user's role there. */
export interface FormContext extends WorkspaceContext {
  form: Form;
}

/** What every admin page component receives besides its `data`. */
export interface PageProps {
  state: AdminState | null;
  url: URL;
  /** The session's CSRF token for hidden `_csrf` inputs. */
  csrf: string;
}

/**
 * The `define.handlers` / `define.page` of pages whose context is `Ctx` (a page takes the
 * one of its access: `defineFor(access)` in routes/admin/_access.ts).
 */
export function defineOver<Ctx extends PageContext>(): Define<Ctx, PageProps> {
  return createDefine<Ctx, PageProps>();
}

/** The `define` of public pages and of helpers that serve any page. */
export const define: Define<PageContext, PageProps> = defineOver<PageContext>();

/** Fixed notice texts, so a redirect's `?notice=` can never carry arbitrary text. */
export const NOTICES = {
  signed_out: "You are signed out.",
  form_created: "Form created. Share it with the embed snippets below.",
  form_saved: "Form saved.",
  form_opened: "The form accepts submissions again.",
  form_closed: "The form no longer accepts submissions.",
  marked_spam: "Marked as spam.",
  marked_completed: "Marked as not spam.",
  marked_spam_many: "Marked as spam. Your workspace's spam filter learns from it.",
  marked_completed_many: "Marked as not spam. Your workspace's spam filter learns from it.",
  deleted: "Submissions deleted.",
  form_duplicated: "Form duplicated. The copy is closed until you open it.",
  form_archived: "Form archived: it is closed and listed under Archived.",
  form_unarchived: "Form unarchived. It stays closed until you accept submissions.",
  form_deleted: "Form deleted, with its submissions and files.",
  deleted_one: "Submission deleted.",
  marked_unread: "Marked as unread.",
  none_selected: "Nothing was deleted: tick the submissions to delete first.",
  key_revoked: "API key revoked. Requests with it now get 401.",
  workspace_created: "Workspace created.",
  workspace_saved: "Workspace updated.",
  job_retried: "The job was queued again.",
  switched: "Switched workspace.",
  invited: "Invitation sent. The link works once, for 7 days.",
  invite_withdrawn: "Invitation withdrawn. Its link no longer works.",
  role_changed: "Role changed.",
  member_removed: "Member removed from this workspace.",
  joined: "Welcome! You joined the workspace.",
  password_changed: "Password changed. Your other sessions are signed out.",
  password_reset: "Password changed. Sign in with the new one.",
  webhook_enabled: "Endpoint enabled. New events are delivered to it again.",
  webhook_disabled: "Endpoint disabled. No events are delivered to it.",
  webhook_deleted: "Endpoint deleted, with its delivery log.",
  webhook_resent: "Resend queued. It shows in the log once attempted.",
  webhook_test_sent: "Test event queued. It shows in the log once attempted.",
  destination_created:
    "Destination added. Its URL is now shown only by its host and last 4 characters.",
  test_mail_sent: "Test mail queued to the form's notification addresses.",
  draft_deleted: "Draft deleted.",
  privacy_saved: "Privacy settings saved.",
  erase_started: "Erasure started. It runs in the background; this page shows its progress.",
} as const;

/** A request refused because of the user's role (the error page says so and links back). */
export class RoleRefused extends AppError {
  constructor(message: string) {
    super(403, "forbidden", message);
  }
}

/** The refusal of a workspace role below `need` (`role`: the user's, null for none). */
export function roleRefused(role: Role | null, need: Role): RoleRefused {
  const who = { viewer: "members", admin: "admins and owners", owner: "owners" }[need];
  return new RoleRefused(
    `Only ${who} of this workspace can do this; your role here is ${role ?? "none"}. ` +
      "Ask an owner of the workspace if you need it.",
  );
}

/**
 * Whether the signed-in user's role in `workspaceId` is at least `need` (default admin):
 * pages offer a control only to those the access guard lets use it.
 */
export function may(state: AdminState | null, workspaceId: string, need: Role = "admin"): boolean {
  return state !== null && atLeast(roleIn(state.user, workspaceId), need);
}

/** Whether the signed-in user may see a workspace: they have a role in it. */
export function canAccess(state: Pick<AdminState, "user">, workspaceId: string): boolean {
  return roleIn(state.user, workspaceId) !== null;
}

/** A posted string, trimmed. */
export function field(body: URLSearchParams, name: string): string {
  return (body.get(name) ?? "").trim();
}

/**
 * A posted id, trimmed: one that the service cannot have issued (too long, odd characters)
 * is a 404 saying `missing`, before any read; an empty one is left to the caller.
 */
export function idField(body: URLSearchParams, name: string, missing: string): string {
  const value = field(body, name);
  if (value && !isPlausibleId(value)) throw errors.notFound(missing);
  return value;
}
