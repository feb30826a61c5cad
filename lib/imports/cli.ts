/**
 * The CLI's `import --form PUBLIC_ID --file F [--format csv|formspree|basin|netlify]`:
 * reads the file, imports it (mod.ts), reports progress and each bad row on standard
 * error, and answers `{imported, skipped}`.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { getForm } from "@/lib/forms/forms.ts";
import { IMPORT_FORMATS, isImportFormat } from "./formats.ts";
import { importFile } from "./mod.ts";

/** Where the CLI import writes its progress and bad-row lines. */
export type LineWriter = (line: string) => void;

/** Runs `import` with the parsed options; returns what the CLI prints on stdout. */
export async function importCli(
  deps: Deps,
  opts: { form?: string; file?: string; format?: string },
  report: LineWriter = (line) => console.error(line),
): Promise<{ imported: number; skipped: number }> {
  if (!opts.form || !opts.file) {
    throw errors.badRequest("Usage: import --form PUBLIC_ID --file F [--format csv|...]");
  }
  const format = opts.format ?? "csv";
  if (!isImportFormat(format)) {
    throw errors.badRequest(`--format must be one of ${IMPORT_FORMATS.join(", ")}.`);
  }
  const form = await getForm(deps, opts.form);
  if (!form) throw errors.formNotFound();
  let text: string;
  try {
    text = await Deno.readTextFile(opts.file);
  } catch {
    throw new AppError(400, "bad_request", `Cannot read --file ${opts.file}.`);
  }
  const r = await importFile(deps, form, {
    format,
    text,
    actor: "cli",
    onProgress: (done, total) => report(`progress: ${done} of ${total} rows`),
  });
  for (const bad of r.bad_rows) report(`line ${bad.line} skipped: ${bad.error}`);
  return { imported: r.imported, skipped: r.skipped };
}
