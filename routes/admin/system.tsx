/**
 * The last backup, the job backlog, undelivered jobs (each can be retried) and the versions
 * running (instance owners only: its `access`).
 * @module
 */
import { AppError } from "@/lib/errors.ts";
import { page } from "@/lib/ui/define.ts";
import { retryUndelivered, type SystemStatus, systemStatus } from "@/lib/ops/system.ts";
import { ActionButton, PageHead, Time } from "./_layout.tsx";
import { field } from "./_page.ts";
import { allow, defineFor } from "./_access.ts";
import { count } from "@/components/count.ts";

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.instanceOwner("see the system status");
const define = defineFor(access);

/** GET shows the status; POST `action=retry` with `job_id` enqueues an undelivered job again. */
export const handler = define.handlers<SystemStatus>({
  async GET(ctx) {
    return page(await systemStatus(ctx.deps), { title: "System" });
  },
  async POST(ctx) {
    if (field(ctx.body, "action") !== "retry") {
      throw new AppError(400, "bad_request", "Unknown action.");
    }
    await retryUndelivered(ctx.deps, field(ctx.body, "job_id"));
    return ctx.redirect("/admin/system", "job_retried");
  },
});

const iso = (ms: number | null | undefined) => ms == null ? null : new Date(ms).toISOString();

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(bytes < 1024 * 1024 ? 2 : 1)} MiB`;
}

/** The System page. */
export default define.page<typeof handler>(function System({ data, csrf }) {
  const b = data.lastBackup;
  return (
    <>
      <PageHead title="System" sub="Backups, background jobs and versions of this instance." />
      <section class="card" aria-labelledby="backup-h">
        <h2 id="backup-h">Last backup</h2>
        {b
          ? (
            <p>
              <Time iso={iso(b.at)} /> · <span class="mono">{b.path}</span> · {mib(b.bytes)}
              {" · "}
              {b.kv === "sqlite" ? "KV snapshot" : "KV export"}, {count(b.files, "file")}
            </p>
          )
          : (
            <p class="muted">
              No backup recorded. Run <code>deno task cli backup --out FILE</code>.
            </p>
          )}
      </section>
      <section class="card" aria-labelledby="jobs-h">
        <h2 id="jobs-h">Job backlog</h2>
        <p>
          {data.backlog.pending === null
            ? "This KV backend does not report its queue length."
            : `${count(data.backlog.pending, "job")} waiting`}
          {data.backlog.oldestDueAt !== null && (
            <>
              {" "}· oldest due <Time iso={iso(data.backlog.oldestDueAt)} />
            </>
          )}
        </p>
      </section>
      <section aria-labelledby="undelivered-h">
        <h2 id="undelivered-h">Undelivered jobs ({data.undeliveredTotal})</h2>
        {data.undelivered.length === 0
          ? <p class="muted">None: every job ran or is still being retried.</p>
          : (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th>Job</th>
                    <th>Details</th>
                    <th>
                      <span class="visually-hidden">Retry</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.undelivered.map((j) => (
                    <tr>
                      <td>
                        {j.type}
                        <div class="muted mono">{j.id}</div>
                      </td>
                      <td class="mono">{j.summary}</td>
                      <td>
                        <ActionButton
                          csrf={csrf}
                          action="retry"
                          fields={{ job_id: j.id }}
                          label="Retry"
                        />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
      </section>
      <section class="card" aria-labelledby="versions-h">
        <h2 id="versions-h">Versions</h2>
        <dl>
          <dt>Formwell</dt>
          <dd>{data.versions.formwell}</dd>
          <dt>Deno</dt>
          <dd>
            {data.versions.deno} (V8 {data.versions.v8}, TypeScript {data.versions.typescript})
          </dd>
          <dt>KV backend</dt>
          <dd>{data.versions.kv}</dd>
        </dl>
      </section>
    </>
  );
});
