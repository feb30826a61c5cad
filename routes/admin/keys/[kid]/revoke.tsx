/**
 * Revoking a key, with a confirmation step: GET asks, POST revokes.
 * @module
 */
import { adminAudit } from "@/routes/admin/_audit.ts";
import { type ApiKeyView, listApiKeys, revokeApiKey } from "@/lib/keys/api_keys.ts";
import { page } from "@/lib/ui/define.ts";
import { errors } from "@/lib/errors.ts";
import { Csrf, PageHead, Time } from "@/routes/admin/_layout.tsx";
import { type WorkspaceContext } from "@/routes/admin/_page.ts";
import { allow, defineFor } from "@/routes/admin/_access.ts";

interface Data {
  key: ApiKeyView;
}

async function findKey(ctx: WorkspaceContext): Promise<ApiKeyView> {
  const ws = ctx.workspace;
  const key = (await listApiKeys(ctx.deps, ws.id)).find((k) => k.id === ctx.params.kid);
  if (!key) throw errors.notFound("API key not found.");
  return key;
}

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.workspace({ GET: "admin", POST: "admin" });
const define = defineFor(access);

/** GET confirms; POST revokes (only keys of the current workspace). */
export const handler = define.handlers<Data>({
  async GET(ctx) {
    const key = await findKey(ctx);
    if (key.revoked) return ctx.redirect("/admin/keys");
    return page({ key }, { title: "Revoke key?" });
  },
  async POST(ctx) {
    const key = await findKey(ctx);
    const wsId = ctx.workspace.id;
    await revokeApiKey(ctx.deps, key.id, wsId);
    await adminAudit(ctx, wsId, "key.revoked", { key: key.prefix, name: key.name });
    return ctx.redirect("/admin/keys", "key_revoked");
  },
});

/** The confirmation. */
export default define.page<typeof handler>(function Revoke({ data, csrf }) {
  const k = data.key;
  return (
    <>
      <PageHead title={`Revoke "${k.name}"?`} />
      <form method="post" class="card">
        <Csrf token={csrf} />
        <p>
          Key <code>{k.prefix}…</code> ({k.type}, scopes {k.scopes.join(", ")}), last used{" "}
          <Time iso={k.last_used_at} />.
        </p>
        <p>
          From now on, every request made with this key is refused as unauthorized (HTTP 401). This
          cannot be undone; create a new key to replace it.
        </p>
        <p class="form-actions">
          <button type="submit" class="danger">Revoke key</button>{" "}
          <a class="button secondary" href="/admin/keys">Cancel</a>
        </p>
      </form>
    </>
  );
});
