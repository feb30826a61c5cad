/**
 * The admin's frame: header with navigation, workspace switcher and sign-out, the notice
 * line, and the page.
 * @module
 */
import type { ComponentChildren } from "preact";
import Notice from "@/islands/Notice.tsx";
import { Island } from "@/lib/ui/island.tsx";
import { SUSPENDED_MESSAGE } from "@/lib/workspaces/suspension.ts";
import { type AdminState, NOTICES } from "./_page.ts";

/** The admin layout around every page. */
export function Layout(
  { state, url, csrf, children }: {
    state: AdminState | null;
    url: URL;
    csrf: string;
    children: ComponentChildren;
  },
) {
  const notice = NOTICES[url.searchParams.get("notice") as keyof typeof NOTICES];
  const path = url.pathname;
  const nav = (href: string, label: string) => (
    <a href={href} aria-current={path.startsWith(href) ? "page" : undefined}>{label}</a>
  );
  return (
    <>
      <a class="skip" href="#main">Skip to content</a>
      <header class="admin-header">
        <a class="brand" href="/admin/forms">Formwell</a>
        {state && (
          <nav aria-label="Main">
            {nav("/admin/forms", "Forms")}
            {state.role !== "viewer" && nav("/admin/keys", "API keys")}
            {state.workspace && state.role !== "viewer" && nav("/admin/webhooks", "Webhooks")}
            {state.workspace && nav("/admin/outbox", "Outbox")}
            {state.workspace && nav("/admin/members", "Members")}
            {state.workspace && state.role !== "viewer" && nav("/admin/privacy", "Privacy")}
            {state.workspace && state.role !== "viewer" && nav("/admin/audit", "Audit log")}
            {state.user.owner && nav("/admin/workspaces", "Workspaces")}
            {state.user.owner && nav("/admin/system", "System")}
            {nav("/admin/account", "Account")}
          </nav>
        )}
        {state && (
          <div class="header-tools">
            {state.workspaces.length > 0 && (
              <form method="post" action="/admin/switch" class="switcher">
                <input type="hidden" name="_csrf" value={csrf} />
                <input type="hidden" name="next" value={path} />
                <label class="visually-hidden" for="ws-switch">Workspace</label>
                <select id="ws-switch" name="workspace_id">
                  {state.workspaces.map((w) => (
                    <option value={w.id} selected={w.id === state.workspace?.id}>
                      {w.name}
                      {w.suspended ? " (suspended)" : ""}
                    </option>
                  ))}
                </select>
                <button type="submit" class="secondary small">Switch</button>
              </form>
            )}
            <form method="post" action="/admin/logout">
              <input type="hidden" name="_csrf" value={csrf} />
              <button type="submit" class="secondary small" title={state.user.email}>
                Sign out
              </button>
            </form>
          </div>
        )}
      </header>
      <main id="main" class="container wide">
        {state?.workspace?.suspended && (
          <p class="notice error" role="status">{SUSPENDED_MESSAGE}</p>
        )}
        {notice && <Island name="Notice" component={Notice} props={{ text: notice }} />}
        {(state?.disabledWebhooks ?? 0) > 0 && (
          <p class="notice error" role="alert">
            {state!.disabledWebhooks === 1
              ? "A webhook endpoint was disabled after failing."
              : `${state!.disabledWebhooks} webhook endpoints were disabled after failing.`}{" "}
            <a href="/admin/webhooks">See Webhooks</a> to fix and enable it.
          </p>
        )}
        {children}
      </main>
    </>
  );
}

/** A page heading with optional actions on the right. */
export function PageHead(
  { title, children, sub }: {
    title: string;
    children?: ComponentChildren;
    sub?: ComponentChildren;
  },
) {
  return (
    <div class="page-head">
      <div>
        <h1>{title}</h1>
        {sub && <p class="muted">{sub}</p>}
      </div>
      {children && <div class="actions">{children}</div>}
    </div>
  );
}

/** The tabs only members who may change a form see. */
const MANAGE_TABS: [string, string][] = [
  ["/edit", "Edit"],
  ["/integrations", "Integrations"],
  ["/import", "Import"],
];

/** The tabs of one form's pages; `edit` false (a viewer) leaves out the managing tabs. */
export function FormTabs(
  { id, current, edit = true }: { id: string; current: string; edit?: boolean },
) {
  const tabs: [string, string][] = [
    ["", "Overview"],
    ["/submissions", "Submissions"],
    ["/drafts", "Drafts"],
    ...(edit ? MANAGE_TABS : []),
  ];
  return (
    <nav class="tabs" aria-label="Form">
      {tabs.map(([p, label]) => (
        <a href={`/admin/forms/${id}${p}`} aria-current={current === p ? "page" : undefined}>
          {label}
        </a>
      ))}
    </nav>
  );
}

/** A hidden CSRF input. */
export function Csrf({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />;
}

/**
 * A one-button POST form: the CSRF token, `action` and `fields` as hidden inputs. `to` is
 * the page posted to (default: this one); `kind` the button's classes; `ariaLabel` names the
 * button where its label alone does not say what it acts on.
 */
export function ActionButton(
  { csrf, action, fields = {}, label, to, kind = "secondary small", disabled, ariaLabel }: {
    csrf: string;
    action: string;
    fields?: Record<string, string>;
    label: string;
    to?: string;
    kind?: string;
    disabled?: boolean;
    ariaLabel?: string;
  },
) {
  return (
    <form method="post" action={to} class="inline">
      <Csrf token={csrf} />
      <input type="hidden" name="action" value={action} />
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <button type="submit" class={kind || undefined} disabled={disabled} aria-label={ariaLabel}>
        {label}
      </button>
    </form>
  );
}

/** A date-time shown in UTC, readable and unambiguous. */
export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span class="muted">never</span>;
  return <time datetime={iso}>{iso.slice(0, 16).replace("T", " ")} UTC</time>;
}
