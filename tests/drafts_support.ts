/**
 * Draft test support: a drafts-enabled form and requests carrying a resume token.
 * @module
 */
import type { FormDefinition } from "@/lib/schemas.ts";
import { CONTACT_FORM, type TestEnv } from "@/tests/helpers.ts";

/** CONTACT_FORM with drafts on (7 days) and an owner email. */
export const DRAFT_FORM: FormDefinition = {
  ...CONTACT_FORM,
  notifications: { emails: ["owner@example.com"] },
  drafts: { enabled: true, ttl_days: 7 },
};

/** A request to a draft route with `Authorization: Bearer <token>` and a JSON body. */
export function draftReq(
  env: TestEnv,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<Response> {
  return env.request(path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** How many KV entries lie under `prefix`. */
export async function countUnder(env: TestEnv, prefix: Deno.KvKey): Promise<number> {
  let n = 0;
  for await (const _ of env.deps.kv.list({ prefix })) n++;
  return n;
}
