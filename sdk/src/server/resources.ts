/**
 * The Server Data API's resources: forms (with analytics), submissions, files, privacy and
 * the audit log. Each list has `page()` (one page as the API answers it) and `list()` (an
 * async iterator over every item).
 * @module
 */
import type { Call, Runtime } from "../http.ts";
import { errorFromAnswer, networkError } from "../errors.ts";
import type {
  Analytics,
  AuditEvent,
  AuditQuery,
  DeleteResult,
  DownloadLink,
  Form,
  FormCreate,
  FormListQuery,
  FormPatch,
  Pagination,
  PrivacyExport,
  PrivacyJob,
  Submission,
  SubmissionListQuery,
} from "../types.ts";
import { paginate } from "./paginate.ts";

/** Sends one authenticated call and returns its JSON body. */
export type Caller = <T>(call: Call) => Promise<T>;

/** Query values as the URL builder takes them. */
export type Query = Record<string, string | number | undefined>;

const SERVER = "/api/v1/server";
/** Submission ids one delete call takes. */
export const DELETE_BATCH = 500;

function at(...parts: string[]): string {
  return SERVER + parts.map((p) => `/${encodeURIComponent(p)}`).join("");
}

/** An iterator over a list whose pages hold their items under `key`. */
export function lister<T, Q extends object>(
  page: (query: Q) => Promise<Record<string, unknown>>,
  key: string,
): (query?: Omit<Q, "page">) => AsyncGenerator<T> {
  return (query = {} as Omit<Q, "page">) =>
    paginate(async (p) => {
      const r = await page({ ...query, page: p } as Q);
      return { items: r[key] as T[], pagination: r.pagination as Pagination };
    });
}

/** `fw.forms`. */
export function formsApi(call: Caller) {
  const page = (query: FormListQuery = {}) =>
    call<{ forms: Form[]; pagination: Pagination }>({
      path: at("forms"),
      query: query as Query,
    });
  return {
    page,
    list: lister<Form, FormListQuery>(page, "forms"),
    /** One form, by public id or `key:<slug>`. */
    get: (id: string) => call<{ form: Form }>({ path: at("forms", id) }).then((r) => r.form),
    /** Creates a form (`admin` scope, live key); a definition's problems reject with 422. */
    create: (definition: FormCreate) =>
      call<{ form: Form }>({ method: "POST", path: at("forms"), body: definition })
        .then((r) => r.form),
    /** Changes any part of a form's definition (`admin` scope, live key). */
    update: (id: string, patch: FormPatch) =>
      call<{ form: Form }>({ method: "PATCH", path: at("forms", id), body: patch })
        .then((r) => r.form),
    analytics: (id: string) =>
      call<{ analytics: Analytics }>({ path: at("forms", id, "analytics") })
        .then((r) => r.analytics),
  };
}

/** `fw.submissions`. */
export function submissionsApi(call: Caller) {
  const page = (formId: string, query: SubmissionListQuery = {}) =>
    call<{ submissions: Submission[]; pagination: Pagination }>({
      path: at("forms", formId, "submissions"),
      query: query as Query,
    });
  return {
    page,
    list: (formId: string, query: Omit<SubmissionListQuery, "page"> = {}) =>
      lister<Submission, SubmissionListQuery>(
        (q) => page(formId, q),
        "submissions",
      )(query),
    get: (formId: string, id: string) =>
      call<{ submission: Submission }>({
        path: at("forms", formId, "submissions", id),
      })
        .then((r) => r.submission),
    /** Deletes by id, in calls of at most 500 ids; the answers are added up. */
    async delete(formId: string, ids: string[]): Promise<DeleteResult> {
      const out: DeleteResult = { deleted: 0, not_found: [] };
      for (let i = 0; i < ids.length; i += DELETE_BATCH) {
        const r = await call<DeleteResult>({
          method: "DELETE",
          path: at("forms", formId, "submissions"),
          body: { ids: ids.slice(i, i + DELETE_BATCH) },
        });
        out.deleted += r.deleted;
        out.not_found.push(...r.not_found);
      }
      return out;
    },
  };
}

/** `fw.files`: signed download links of attached files, and the files themselves. */
export function filesApi(call: Caller, rt: Runtime) {
  const downloadUrl = (formId: string, path: string) =>
    call<DownloadLink>({
      path: at("forms", formId, "files", "download"),
      query: { path },
    });
  return {
    downloadUrl,
    /** The file's bytes as a `Response` (streamable); a refused download throws. */
    async download(formId: string, path: string): Promise<Response> {
      const { url } = await downloadUrl(formId, path);
      let res: Response;
      try {
        res = await rt.fetch(url);
      } catch (err) {
        throw networkError(err);
      }
      if (!res.ok) {
        const body = await res.json().catch(() => null);
        throw errorFromAnswer(
          res.status,
          body,
          res.headers.get("x-request-id") ?? undefined,
        );
      }
      return res;
    },
  };
}

/** `fw.privacy`: erase and export by a person's email. */
export function privacyApi(call: Caller) {
  return {
    erase: (email: string) =>
      call<{ job: PrivacyJob }>({
        method: "POST",
        path: at("privacy", "erase"),
        body: { email },
      })
        .then((r) => r.job),
    job: (id: string) =>
      call<{ job: PrivacyJob }>({ path: at("privacy", "jobs", id) }).then((r) => r.job),
    export: (email: string) =>
      call<PrivacyExport>({ path: at("privacy", "export"), query: { email } }),
  };
}

/** `fw.audit`: the workspace's audit log, newest first. */
export function auditApi(call: Caller) {
  const page = (query: AuditQuery = {}) =>
    call<{ events: AuditEvent[]; pagination: Pagination }>({
      path: at("audit"),
      query: query as Query,
    });
  return { page, list: lister<AuditEvent, AuditQuery>(page, "events") };
}
