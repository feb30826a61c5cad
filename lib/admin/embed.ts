/**
 * Embed snippets the admin shows for a form: the plain HTML form and hosted page link of
 * lib/forms/embed.ts, the client library (`/sdk/formwell.js`) enhancing that form, a
 * fetch/JSON example without the library, and a server-side curl. No snippet pins a
 * schema version: the browser ones read it when the page loads.
 * @module
 */
import { embedFormId, embedSnippet, hostedFormUrl } from "@/lib/forms/embed.ts";
import { type Field, type Form, isFileType } from "@/lib/schemas.ts";

/** The snippets of one form. */
export interface EmbedSnippets {
  hostedUrl: string;
  html: string;
  /** The plain HTML form in each of the form's other languages, by language code. */
  htmlIn: Record<string, string>;
  /** The client library enhancing the plain HTML form. */
  client: string;
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

/**
 * The client library snippet: loads `/sdk/formwell.js`, reads the form's schema as the page
 * loads (so a submission carries the version the page was built for, and a form changed
 * while the page was open is fetched again and resent once), and enhances the plain form.
 */
function clientSnippet(form: Form, baseUrl: string): string {
  const id = JSON.stringify(form.id);
  return [
    `<!-- Paste below the plain HTML form: it is then sent in the background, errors show`,
    `     beside the fields, and nothing is lost offline. Without JavaScript the form still`,
    `     posts as before. -->`,
    `<script type="module">`,
    `  import { Formwell } from "${baseUrl}/sdk/formwell.js";`,
    `  const fw = new Formwell();`,
    `  // Read the form as the page loads: each submission carries that schema version. If the`,
    `  // form is edited while the page is open, the client reads it again and resends once.`,
    `  fw.schema(${id}).catch(() => {});`,
    `  fw.enhance(document.getElementById(${JSON.stringify(embedFormId(form))}));`,
    `</script>`,
  ].join("\n") + "\n";
}

/** The no-library snippet: fetch reads the schema at page load and sends its version. */
function fetchSnippet(form: Form, baseUrl: string, data: Record<string, unknown>): string {
  const id = encodeURIComponent(form.id);
  const sample = JSON.stringify(data, null, 2).replace(/\n/g, "\n  ");
  return [
    `// Read when the page loads: the schema version this page was built for.`,
    `const schema = fetch("${baseUrl}/api/v1/forms/p/${id}")`,
    `  .then((r) => r.json()).catch(() => null);`,
    ``,
    `async function send(data) {`,
    `  const version = (await schema)?.form?.schema_version;`,
    `  const res = await fetch("${baseUrl}/api/v1/submit/p/${id}", {`,
    `    method: "POST",`,
    `    headers: { "Content-Type": "application/json" },`,
    `    body: JSON.stringify({ data, schema_version: version }),`,
    `  });`,
    `  const result = await res.json();`,
    `  if (res.status === 201) return result; // { success, submission_id, submission_number }`,
    `  // 409 schema_changed: the form was edited while this page was open; a reload fixes it.`,
    `  throw Object.assign(new Error(result.error), result);`,
    `}`,
    ``,
    `send(${sample}).then(`,
    `  (r) => console.log("Sent", r.submission_id),`,
    `  (err) => console.error(err.code, err.errors ?? err.message),`,
    `);`,
  ].join("\n");
}

/** Builds the snippets for a form served at `baseUrl`; none pins a schema version. */
export function embedSnippets(form: Form, baseUrl: string): EmbedSnippets {
  const submitUrl = `${baseUrl}/api/v1/submit/p/${form.id}`;
  const data = Object.fromEntries(
    form.fields.map((f) => [f.name, sampleValue(f)]).filter(([, v]) => v !== undefined),
  );
  const curl = [
    `curl -X POST ${submitUrl} \\`,
    `  -H "Authorization: Bearer $FORMWELL_KEY" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '${JSON.stringify({ data }).replace(/'/g, "'\\''")}'`,
  ].join("\n");
  return {
    hostedUrl: hostedFormUrl(form, baseUrl),
    html: embedSnippet(form, baseUrl),
    htmlIn: Object.fromEntries(
      Object.keys(form.translations ?? {}).filter((l) => l !== (form.default_language ?? "en"))
        .sort().map((l) => [l, embedSnippet(form, baseUrl, l)]),
    ),
    client: clientSnippet(form, baseUrl),
    fetch: fetchSnippet(form, baseUrl, data),
    curl,
  };
}
