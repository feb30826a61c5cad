/**
 * Checks real `/api/v1` answers against the served OpenAPI document, with `ajv` (JSON Schema
 * 2020-12, as OpenAPI 3.1 uses it) and `ajv-formats`: the operation declares the status, the
 * answer's media type is one declared for it, a JSON body matches the declared schema, and
 * every required response header is present. tests/helpers.ts runs it on every answer the
 * test app gives, so a route answering something undeclared fails the suite.
 * @module
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { Deps } from "@/lib/deps.ts";
import { buildOpenApiDocument, type OpenApiDocument } from "@/lib/api/document.ts";
import { v1Api } from "@/routes/mod.ts";

type Header = { required?: boolean; $ref?: string };
type Media = { schema?: unknown };
type Answer = { headers?: Record<string, Header>; content?: Record<string, Media> };
type Documented = {
  method: string;
  path: string;
  pattern: RegExp;
  literal: number;
  responses: Record<string, Answer>;
};

type Contract = { doc: OpenApiDocument; ajv: Ajv2020; operations: Documented[] };
let contract: Contract | null = null;
const validators = new Map<string, ValidateFunction>();

/** The served document and a validator over it, built once per test process. */
export function apiContract(deps: Deps): Contract {
  if (contract) return contract;
  const doc = buildOpenApiDocument(v1Api(deps), deps.config);
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema(doc as object, "openapi");
  const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      pattern: new RegExp(`^${path.replace(/\./g, "\\.").replace(/\{\w+\}/g, "[^/]+")}$`),
      literal: path.replace(/\{\w+\}/g, "").length,
      responses: (op.responses ?? {}) as Record<string, Answer>,
    }))
  );
  // Compiling the shared components once here keeps a test's first answer as fast as the
  // rest (timing-sensitive tests measure from before it).
  ajv.compile({ $ref: "openapi#/components/schemas/Error" });
  contract = { doc, ajv, operations };
  return contract;
}

/** A JSON pointer segment. */
function pointer(s: string): string {
  return s.replace(/~/g, "~0").replace(/\//g, "~1");
}

/**
 * What is wrong with `res` as the answer to `method url` (a path under `/api/v1/`), or
 * null when the document declares it. Reads a clone of a JSON body.
 */
export async function contractViolation(
  deps: Deps,
  method: string,
  url: string,
  res: Response,
): Promise<string | null> {
  const { ajv, operations, doc } = apiContract(deps);
  const path = new URL(url, "http://localhost").pathname;
  const byPath = operations.filter((o) => o.pattern.test(path));
  if (!byPath.length) {
    // A path no operation has: only the router's 404 may answer it.
    return res.status === 404 ? null : `${method} ${path}: ${res.status} on an undocumented path`;
  }
  // A literal path wins over a template that also matches it.
  // A method no operation has on this path: only the router's 404 may answer it, or the
  // 405 that the path's operation declares for every other method (POST-only routes).
  const op = byPath.filter((o) => o.method === method).sort((a, b) => b.literal - a.literal)[0] ??
    (res.status === 405 ? byPath.find((o) => o.responses["405"]) : undefined);
  const where = `${method} ${op?.path ?? path} ${res.status}`;
  if (!op) return res.status === 404 ? null : `${where}: the method is not documented`;
  const answer = op.responses[String(res.status)];
  if (!answer) return `${where}: the status is not documented`;

  const components = (doc.components ?? {}) as { headers?: Record<string, Header> };
  for (const [name, declared] of Object.entries(answer.headers ?? {})) {
    const header = declared.$ref
      ? components.headers?.[declared.$ref.split("/").pop()!] ?? {}
      : declared;
    if (header.required && !res.headers.has(name)) {
      return `${where}: the required header ${name} is missing`;
    }
  }

  const type = (res.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (!type) return null;
  const declared = Object.keys(answer.content ?? {});
  const media = declared.find((d) => d === type) ??
    declared.find((d) => d.endsWith("/*") && type.startsWith(d.slice(0, -1))) ??
    declared.find((d) => d === "*/*");
  if (!media) {
    return `${where}: Content-Type ${type} is not declared (${declared.join(", ") || "no body"})`;
  }
  if (!/^application\/(.+\+)?json$/.test(media)) return null;
  const ref = `openapi#/paths/${pointer(op.path)}/${op.method.toLowerCase()}/responses/` +
    `${res.status}/content/${pointer(media)}/schema`;
  const validate = validators.get(ref) ?? ajv.compile({ $ref: ref });
  validators.set(ref, validate);
  const text = await res.clone().text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `${where}: the body is not JSON: ${text.slice(0, 200)}`;
  }
  if (validate(body)) return null;
  return `${where}: the body differs from the documented schema: ` +
    `${JSON.stringify(validate.errors?.slice(0, 3))} in ${text.slice(0, 300)}`;
}

/** Throws when `res`, the answer to `method url`, is not declared; returns a JSON body. */
export async function assertDocumented(
  deps: Deps,
  method: string,
  url: string,
  res: Response,
): Promise<unknown> {
  const wrong = await contractViolation(deps, method, url, res);
  if (wrong) throw new Error(wrong);
  const type = res.headers.get("content-type") ?? "";
  return type.includes("json") ? await res.clone().json() : null;
}
