/**
 * API keys of the current workspace: create (post/redirect/get: the raw key is shown once,
 * from a short-lived one-time record, with a copy button), list with prefix, scopes, dates
 * and the over-limit flag, revoke.
 * @module
 */
import { adminAudit } from "@/routes/admin/_audit.ts";
import { page } from "@/lib/ui/define.ts";
import SubmitButton from "@/islands/SubmitButton.tsx";
import { type ApiKeyView, createApiKey, listApiKeys } from "@/lib/keys/api_keys.ts";
import { AppError } from "@/lib/errors.ts";
import { allowsKeys, planOf } from "@/lib/workspaces/plans.ts";
import { type Scope, SCOPES, type Workspace } from "@/lib/schemas.ts";
import { Island } from "@/lib/ui/island.tsx";
import { storeKeyReveal, takeKeyReveal } from "@/lib/admin/key_reveal.ts";
import { Csrf, PageHead, Time } from "@/routes/admin/_layout.tsx";
import { PlanNote } from "@/routes/admin/_plan.tsx";
import { SecretReveal } from "@/routes/admin/_reveal.tsx";
import { field } from "@/routes/admin/_page.ts";
import { allow, defineFor } from "@/routes/admin/_access.ts";
import { count } from "@/components/count.ts";

interface Data {
  workspace: Workspace;
  keys: ApiKeyView[];
  created?: { name: string; key: string };
  /** The page was opened with a reveal token that was already used or expired. */
  gone?: boolean;
  error?: string;
}

const SCOPE_HELP: Record<Scope, string> = {
  submit: "submit without CAPTCHA",
  read: "read forms, submissions, analytics, files, exports by person",
  admin:
    "read, plus delete submissions, create and change forms, manage webhooks, erase by person, read the audit log",
};

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.workspace({ GET: "admin", POST: "admin" });
const define = defineFor(access);

/** GET lists; POST creates. */
export const handler = define.handlers<Data>({
  async GET(ctx) {
    const workspace = ctx.workspace;
    const keys = await listApiKeys(ctx.deps, workspace.id);
    const token = ctx.url.searchParams.get("created");
    if (!token) return page({ workspace, keys }, { title: "API keys" });
    const shown = await takeKeyReveal(ctx.deps, token, ctx.state.user.id, workspace.id);
    const created = shown ? { name: shown.name, key: shown.key } : undefined;
    return page({ workspace, keys, created, gone: !shown }, { title: "API keys" });
  },
  async POST(ctx) {
    const workspace = ctx.workspace;
    const scopes = ctx.body.getAll("scopes").filter((s): s is Scope =>
      (SCOPES as readonly string[]).includes(s)
    );
    const type = ctx.body.get("type") === "test" ? "test" : "live";
    let error: string;
    try {
      if (!scopes.length) throw new AppError(400, "bad_request", "Pick at least one scope.");
      const created = await createApiKey(ctx.deps, {
        workspaceId: workspace.id,
        name: field(ctx.body, "name"),
        type,
        scopes,
      });
      await adminAudit(ctx, workspace.id, "key.created", {
        key: created.prefix,
        name: created.name,
        type,
        scopes,
      });
      const token = await storeKeyReveal(ctx.deps, {
        session_user: ctx.state.user.id,
        workspace_id: workspace.id,
        name: created.name,
        key: created.key,
      });
      // Post/redirect/get: a reload shows the list, it never creates a second key.
      return ctx.redirect(`/admin/keys?created=${token}`);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      error = err.message;
    }
    const keys = await listApiKeys(ctx.deps, workspace.id);
    return page({ workspace, keys, error }, { title: "API keys", status: 400 });
  },
});

/** The keys page. */
export default define.page<typeof handler>(function Keys({ data, csrf, url, state }) {
  const { workspace, keys, created } = data;
  const owner = Boolean(state?.user.owner);
  const active = keys.filter((k) => !k.revoked).length;
  const cap = planOf(workspace.plan).maxActiveKeys;
  return (
    <>
      <PageHead
        title="API keys"
        sub={`${workspace.name}: ${active} of ${
          count(cap, "active key")
        } on the ${workspace.plan} plan.`}
      />
      <PlanNote />
      {created && (
        <SecretReveal
          heading={`Key "${created.name}" created.`}
          id="new-key"
          secret={created.key}
        />
      )}
      {data.gone && (
        <p class="notice" role="status">
          A new key is shown only once, right after it is created. If you did not copy it, revoke it
          and create another.
        </p>
      )}
      {data.error && <p class="notice error" role="alert">{data.error}</p>}
      {!allowsKeys(workspace.plan)
        ? (
          <p class="notice">
            API keys and the Server Data API need the Starter plan or above; this workspace is on
            the {workspace.plan} plan. {owner
              ? (
                <>
                  Change its plan on the <a href="/admin/workspaces">Workspaces</a> page.
                </>
              )
              : "Ask an instance owner of this server to change its plan."}
          </p>
        )
        : (
          <details class="card" open={keys.length === 0 || Boolean(data.error)}>
            <summary>Create a key</summary>
            <form method="post" action="/admin/keys">
              <Csrf token={csrf} />
              <label for="key-name">Name</label>
              <input
                id="key-name"
                name="name"
                type="text"
                required
                maxLength={100}
                placeholder="Production backend"
              />
              <fieldset>
                <legend>Type</legend>
                <label class="check">
                  <input type="radio" name="type" value="live" checked /> Live (fw_live_): real data
                </label>
                <label class="check">
                  <input type="radio" name="type" value="test" /> Test (fw_test_): test data only
                </label>
              </fieldset>
              <fieldset>
                <legend>Scopes</legend>
                {SCOPES.map((s) => (
                  <label class="check">
                    <input type="checkbox" name="scopes" value={s} checked={s !== "admin"} />{" "}
                    <code>{s}</code> <span class="muted">{SCOPE_HELP[s]}</span>
                  </label>
                ))}
              </fieldset>
              <div class="form-actions">
                <Island
                  name="SubmitButton"
                  component={SubmitButton}
                  props={{ label: "Create key", busyLabel: "Creating…" }}
                />
              </div>
            </form>
          </details>
        )}
      {keys.length === 0
        ? allowsKeys(workspace.plan) && (
          <div class="empty">
            <h2>No keys yet</h2>
            <p>Create a key to submit from your server or read submissions with the API.</p>
          </div>
        )
        : (
          <div class="table-wrap">
            <table class="list stack">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Key</th>
                  <th>Scopes</th>
                  <th>Created</th>
                  <th>Last used</th>
                  <th>
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {keys.map((k) => (
                  <tr class={k.revoked ? "revoked" : ""}>
                    <td data-label="Name">
                      {k.name}
                      {k.revoked && <span class="badge">revoked</span>}
                      {k.over_limit && (
                        <span class="badge suspicious" title="Still works; over the plan's cap">
                          over limit
                        </span>
                      )}
                    </td>
                    <td class="mono" data-label="Key">{k.prefix}…</td>
                    <td data-label="Scopes">{k.scopes.join(", ")}</td>
                    <td data-label="Created">
                      <Time iso={k.created_at} />
                    </td>
                    <td data-label="Last used">
                      <Time iso={k.last_used_at} />
                    </td>
                    <td>
                      {!k.revoked && (
                        <a class="button danger small" href={`/admin/keys/${k.id}/revoke`}>
                          Revoke
                        </a>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      <section class="card" aria-labelledby="api-use">
        <h2 id="api-use">Using a key</h2>
        <p>
          Send the key as a bearer token from your server, never from a browser. Every route, with
          its parameters, answers and a curl example, is in the{" "}
          <a href="/docs/api">API reference</a>.
        </p>
        <pre class="code" tabindex={0} aria-label="Example request">{exampleRequest(url)}</pre>
      </section>
    </>
  );
});

/** A first request to try with a new key (the key itself stays a placeholder). */
function exampleRequest(url: URL): string {
  return `curl ${url.origin}/api/v1/server/forms \\\n  -H "Authorization: Bearer fw_live_YOUR_KEY"`;
}
