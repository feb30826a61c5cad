/**
 * Who is signed in: the admin state loaded from the session cookie, and the page to return
 * to after signing in.
 * @module
 */
import type { Context } from "hono";
import type { Deps } from "@/lib/deps.ts";
import type { AppEnv } from "@/lib/http/http.ts";
import { getSession, renewSession } from "@/lib/admin/sessions.ts";
import { getUser, sessionOutdated } from "@/lib/admin/users.ts";
import { roleIn } from "@/lib/admin/members.ts";
import { getWorkspace, listWorkspaces } from "@/lib/workspaces/workspaces.ts";
import type { Workspace } from "@/lib/schemas.ts";
import { listWebhooks } from "@/lib/notify/webhooks.ts";
import { type AdminState, canAccess } from "./_page.ts";

/** The signed-in user's state (renewing the session), or null. */
export async function loadState(
  deps: Deps,
  token: string | undefined,
): Promise<AdminState | null> {
  const found = await getSession(deps, token);
  if (!found || !token) return null;
  const user = await getUser(deps, found.user_id);
  // A password change or reset ends the sessions started before it.
  if (!user || sessionOutdated(user, found.created_at)) return null;
  // Any request, page view or save, keeps an active admin signed in (up to the cap).
  const session = await renewSession(deps, token, found);
  const all = user.owner
    ? await listWorkspaces(deps)
    : (await Promise.all(user.workspace_ids.map((id) => getWorkspace(deps, id))))
      .filter((w): w is Workspace => w !== null && roleIn(user, w.id) !== null);
  const base = { user, session, token, workspaces: all, workspace: null, role: null };
  const current = all.find((w) => w.id === session.workspace_id && canAccess(base, w.id)) ??
    all[0] ?? null;
  const role = current ? roleIn(user, current.id) : null;
  const disabledWebhooks = current && (role === "admin" || role === "owner")
    ? (await listWebhooks(deps, current.id)).filter((w) => !w.enabled && w.disabled_reason).length
    : 0;
  return { ...base, workspace: current, role, disabledWebhooks };
}

/** The same-origin admin page in `Referer` (sent in full: Referrer-Policy same-origin). */
export function refererPage(deps: Deps, c: Context<AppEnv>): string | null {
  let ref: URL;
  try {
    ref = new URL(c.req.header("referer") ?? "");
  } catch {
    return null;
  }
  const ours = [new URL(c.req.url).origin, new URL(deps.config.baseUrl).origin];
  if (!ours.includes(ref.origin)) return null;
  if (!/^\/admin(\/|$)/.test(ref.pathname) || ref.pathname.startsWith("/admin/login")) {
    return null;
  }
  return ref.pathname + ref.search;
}

/** Whether `s` holds a control character (CR, LF, NUL...): never in a Location header. */
function hasControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
/** Relative paths resolve against this; any other origin means the path named a host. */
const PLACEHOLDER = "http://admin.invalid";

/**
 * An admin path that is safe to put in a Location header: our host, under `/admin`, no
 * `//`, backslash or control characters, other characters percent-encoded; else `fallback`.
 */
export function safeAdminPath(path: string | null | undefined, fallback: string): string {
  if (!path || !path.startsWith("/") || hasControl(path) || /\\|\/\//.test(path)) {
    return fallback;
  }
  let url: URL;
  try {
    url = new URL(path, PLACEHOLDER);
  } catch {
    return fallback;
  }
  if (url.origin !== PLACEHOLDER || !/^\/admin(\/|$)/.test(url.pathname)) return fallback;
  return url.pathname + url.search;
}
