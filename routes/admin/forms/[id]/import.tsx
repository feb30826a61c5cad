/**
 * Importing a CSV into a form: GET asks for the file and its format; POST with the file
 * previews the mapping (which column goes to which field, the first rows as they would be
 * stored, the bad rows); POST with `step=import` imports it (lib/imports) and shows what
 * it did. The preview carries the file back in a hidden field, so nothing is kept between.
 * @module
 */
import { page } from "@/lib/ui/define.ts";
import { AppError } from "@/lib/errors.ts";
import { IMPORT_FORMATS, type ImportFormat, isImportFormat } from "@/lib/imports/formats.ts";
import { importFile } from "@/lib/imports/mod.ts";
import { type BadRow, type ImportRow, type Mapping, readImport } from "@/lib/imports/rows.ts";
import type { Form } from "@/lib/schemas.ts";
import { Csrf, FormTabs, PageHead } from "@/routes/admin/_layout.tsx";
import { field, type PageContext } from "@/routes/admin/_page.ts";
import { allow, defineFor } from "@/routes/admin/_access.ts";
import { auditBy } from "@/routes/admin/_audit.ts";
import { count } from "@/components/count.ts";

/** A file the admin imports at most; larger exports go through the CLI. */
const MAX_FILE_BYTES = 5 * 1024 * 1024;
/** Rows and bad rows the preview shows. */
const PREVIEW_ROWS = 5;
const PREVIEW_BAD = 20;

const LABELS: Record<ImportFormat, string> = {
  csv: "CSV (any, Formwell's own export too)",
  formspree: "Formspree export",
  basin: "Basin export",
  netlify: "Netlify Forms export",
};

interface Data {
  form: Form;
  format: ImportFormat;
  error?: string;
  preview?: {
    csv: string;
    fileName: string;
    mapping: Mapping;
    rows: ImportRow[];
    good: number;
    bad: BadRow[];
  };
  result?: { imported: number; skipped: number; bad: BadRow[] };
}

function formatOf(ctx: PageContext): ImportFormat {
  const f = field(ctx.body, "format") || "csv";
  return isImportFormat(f) ? f : "csv";
}

async function step(ctx: PageContext, form: Form): Promise<Data> {
  const format = formatOf(ctx);
  const csv = ctx.body.get("file") ?? ctx.body.get("csv") ?? "";
  if (!csv.trim()) return { form, format, error: "Choose a CSV file to import." };
  if (new TextEncoder().encode(csv).length > MAX_FILE_BYTES) {
    return { form, format, error: "The file is over 5 MB: import it with the CLI instead." };
  }
  if (field(ctx.body, "step") === "import") {
    const r = await importFile(ctx.deps, form, { format, text: csv, ...auditBy(ctx) });
    return { form, format, result: { imported: r.imported, skipped: r.skipped, bad: r.bad_rows } };
  }
  const parsed = readImport(ctx.deps.secret, form, format, csv, ctx.deps.now());
  return {
    form,
    format,
    preview: {
      csv,
      fileName: field(ctx.body, "file_name"),
      mapping: parsed.mapping,
      rows: parsed.rows.slice(0, PREVIEW_ROWS),
      good: parsed.rows.length,
      bad: parsed.bad,
    },
  };
}

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.form({ GET: "admin", POST: "admin" }, { uploads: true });
const define = defineFor(access);

/** GET shows the upload; POST previews or imports. */
export const handler = define.handlers<Data>({
  GET(ctx) {
    const form = ctx.form;
    return page({ form, format: "csv" }, { title: `Import into ${form.name}` });
  },
  async POST(ctx) {
    const form = ctx.form;
    try {
      return page(await step(ctx, form), { title: `Import into ${form.name}` });
    } catch (err) {
      if (!(err instanceof AppError) || err.status !== 400) throw err;
      const data = { form, format: formatOf(ctx), error: err.message };
      return page(data, { title: `Import into ${form.name}`, status: 400 });
    }
  },
});

/** Marks this page as one taking a file upload (multipart). */

function Upload({ data, csrf }: { data: Data; csrf: string }) {
  return (
    <form method="post" enctype="multipart/form-data" class="card">
      <Csrf token={csrf} />
      <p>
        One submission per row, with the row's own date. Columns named like a field of this form
        fill it; the others are kept as metadata. Importing the same file again adds nothing.
      </p>
      <label for="import-format">Exported from</label>
      <select id="import-format" name="format">
        {IMPORT_FORMATS.map((f) => (
          <option value={f} selected={f === data.format}>{LABELS[f]}</option>
        ))}
      </select>
      <label for="import-file">CSV file (up to 5 MB)</label>
      <input id="import-file" name="file" type="file" accept=".csv,text/csv" required />
      <p class="form-actions">
        <button type="submit">Preview</button>
      </p>
    </form>
  );
}

function BadRows({ bad }: { bad: BadRow[] }) {
  if (!bad.length) return null;
  return (
    <>
      <h2>{count(bad.length, "row")} will be skipped</h2>
      <ul>
        {bad.slice(0, PREVIEW_BAD).map((b) => <li key={b.line}>Line {b.line}: {b.error}</li>)}
        {bad.length > PREVIEW_BAD && <li>and {bad.length - PREVIEW_BAD} more</li>}
      </ul>
    </>
  );
}

function Preview({ data, csrf }: { data: Data; csrf: string }) {
  const p = data.preview!;
  const m = p.mapping;
  const target = (column: string): string => {
    const f = m.fields.find((x) => x.column === column);
    if (f) return `field ${f.field}`;
    if (column === m.time) return "date (created_at)";
    if (column === m.status) return "status";
    if (m.dropped.includes(column)) return "ignored";
    return `metadata ${m.metadata.find((x) => x.column === column)?.key ?? column}`;
  };
  const columns = [
    m.time ?? "",
    ...m.fields.map((f) => f.column),
    ...(m.status ? [m.status] : []),
    ...m.metadata.map((x) => x.column),
    ...m.dropped,
  ];
  return (
    <>
      <h2>Mapping</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Column</th>
            <th scope="col">Goes to</th>
          </tr>
        </thead>
        <tbody>
          {columns.map((c) => (
            <tr>
              <td class="mono">{c || "(no name)"}</td>
              <td>{target(c)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>First rows</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Line</th>
            <th scope="col">Date</th>
            <th scope="col">Fields</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {p.rows.map((r) => (
            <tr>
              <td>{r.line}</td>
              <td>{r.created_at.slice(0, 16).replace("T", " ")} UTC</td>
              <td>
                {Object.entries(r.fields).map(([k, v]) => `${k}: ${String(v)}`).join(" · ")}
              </td>
              <td>{r.status}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <BadRows bad={p.bad} />
      <form method="post" class="card">
        <Csrf token={csrf} />
        <input type="hidden" name="step" value="import" />
        <input type="hidden" name="format" value={data.format} />
        <textarea name="csv" hidden aria-hidden="true">{p.csv}</textarea>
        <p>
          {count(p.good, "row")} to import{p.fileName ? ` from ${p.fileName}` : ""}{" "}
          (rows imported before are skipped).
        </p>
        <p class="form-actions">
          <button type="submit">Import</button>{" "}
          <a class="button secondary" href={`/admin/forms/${data.form.id}/import`}>Cancel</a>
        </p>
      </form>
    </>
  );
}

/** The upload, the preview, or the result. */
export default define.page<typeof handler>(function ImportPage({ data, csrf }) {
  const { form, result } = data;
  return (
    <>
      <PageHead title={`Import into ${form.name}`} sub={<span class="mono">{form.id}</span>} />
      <FormTabs id={form.id} current="/import" />
      {data.error && <p class="notice error" role="alert">{data.error}</p>}
      {result && (
        <>
          <p class="notice" role="status">
            Imported {count(result.imported, "submission")}; skipped {result.skipped}{" "}
            (imported before, or bad rows).
          </p>
          <BadRows bad={result.bad} />
          <p>
            <a href={`/admin/forms/${form.id}/submissions`}>See the submissions</a>
          </p>
        </>
      )}
      {data.preview && !result && <Preview data={data} csrf={csrf} />}
      {!data.preview && !result && <Upload data={data} csrf={csrf} />}
    </>
  );
});
