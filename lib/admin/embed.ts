/**
 * Embed snippets the admin shows for a form: the plain HTML form and hosted page link
 * of lib/forms/embed.ts, plus a fetch/JSON example and a server-side curl.
 * @module
 */
import { embedSnippet, hostedFormUrl } from "@/lib/forms/embed.ts";
import { type Field, type Form, isFileType } from "@/lib/schemas.ts";

/** The snippets of one form. */
export interface EmbedSnippets {
  hostedUrl: string;
  html: string;
  fetch: string;
  curl: string;
}

function sampleValue(f: Field): unknown {
  switch (f.type) {
    case "email":
      return "ada@example.com";
    case "number":
    case "integer":
      return 1;
    case "boolean":
      return true;
    case "url":
      return "https://example.com";
    case "date":
      return "2026-01-31";
    case "select":
    case "radio":
      return f.options?.[0] ?? "";
    case "multiselect":
      return f.options?.slice(0, 1) ?? [];
    default:
      return isFileType(f.type) ? undefined : f.label || f.name;
  }
}

/** Builds the snippets for a form served at `baseUrl`. */
export function embedSnippets(form: Form, baseUrl: string): EmbedSnippets {
  const submitUrl = `${baseUrl}/api/v1/submit/p/${form.id}`;
  const data = Object.fromEntries(
    form.fields.map((f) => [f.name, sampleValue(f)]).filter(([, v]) => v !== undefined),
  );
  const body = JSON.stringify({ data, schema_version: form.schema_version }, null, 2);
  const fetchJs = [
    `const res = await fetch("${submitUrl}", {`,
    `  method: "POST",`,
    `  headers: { "Content-Type": "application/json" },`,
    `  body: JSON.stringify(${body.replace(/\n/g, "\n  ")}),`,
    `});`,
    `const result = await res.json();`,
    `if (res.status === 201) console.log("Sent", result.submission_id);`,
    `else console.error(result.error, result.errors ?? "");`,
  ].join("\n");
  const curl = [
    `curl -X POST ${submitUrl} \\`,
    `  -H "Authorization: Bearer $FORMWELL_KEY" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '${JSON.stringify({ data }).replace(/'/g, "'\\''")}'`,
  ].join("\n");
  return {
    hostedUrl: hostedFormUrl(form, baseUrl),
    html: embedSnippet(form, baseUrl),
    fetch: fetchJs,
    curl,
  };
}
