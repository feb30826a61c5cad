/**
 * The KV side of the reliability suite: preparing a KV file before servers start, and
 * reading it directly once they have stopped, to judge what was really stored.
 * @module
 */
import { createApiKey } from "@/lib/keys/api_keys.ts";
import { loadConfig } from "@/lib/config.ts";
import type { Deps } from "@/lib/deps.ts";
import { createForm } from "@/lib/forms/forms.ts";
import { keys } from "@/lib/kv/keys.ts";
import { u64Value } from "@/lib/kv/kv.ts";
import { buildDeps, openKv } from "@/lib/runtime.ts";
import type { Submission } from "@/lib/schemas.ts";
import { createWorkspace } from "@/lib/workspaces/workspaces.ts";
import { SOAK_SECRET, soakEnv } from "./process.ts";

/** The workspace, forms and key a soak drives. */
export interface SoakStore {
  formId: string;
  /** More forms of the same workspace (see prepareStore's `moreForms`). */
  moreFormIds: string[];
  key: string;
}

/** Runs `fn` with deps over the KV file at `kvPath` (same configuration as the servers). */
export async function withDeps<T>(
  kvPath: string,
  dir: string,
  fn: (deps: Deps) => Promise<T>,
): Promise<T> {
  const config = loadConfig({ ...soakEnv(kvPath, 8000, dir), SECRET: SOAK_SECRET });
  const kv = await openKv(config);
  try {
    return await fn(await buildDeps(kv, config));
  } finally {
    kv.close();
  }
}

/**
 * A Business workspace (no monthly quota), a three-field form (and `moreForms` like it)
 * and a submit key.
 */
export async function prepareStore(
  kvPath: string,
  dir: string,
  moreForms = 0,
): Promise<SoakStore> {
  return await withDeps(kvPath, dir, async (deps) => {
    const ws = await createWorkspace(deps, { name: "soak", plan: "business" });
    const form = (name: string) =>
      createForm(deps, ws.id, {
        name,
        fields: [
          { name: "ref", type: "text", required: true, maxLength: 100 },
          { name: "email", type: "email", required: true },
          { name: "note", type: "textarea" },
        ],
      });
    const formId = (await form("Soak")).id;
    const moreFormIds: string[] = [];
    for (let i = 0; i < moreForms; i++) moreFormIds.push((await form(`Soak ${i + 2}`)).id);
    const { key } = await createApiKey(deps, {
      workspaceId: ws.id,
      name: "soak",
      scopes: ["submit", "read"],
    });
    return { formId, moreFormIds, key };
  });
}

/** What the KV file holds for a form, read directly after every server stopped. */
export interface StoredView {
  records: Submission[];
  /** Records per `fields.ref`. */
  byRef: Map<string, Submission[]>;
  numbersUnique: boolean;
  /** The live "all" counter and the sequence, which must equal the records. */
  counter: number;
  seq: number;
  /** Jobs that exhausted their retries. */
  undelivered: number;
}

/** Reads every submission of `formId` from the KV file. */
export async function readStored(kvPath: string, formId: string): Promise<StoredView> {
  const kv = await Deno.openKv(kvPath);
  try {
    const records: Submission[] = [];
    for await (const e of kv.list<Submission>({ prefix: keys.submissions(formId) })) {
      records.push(e.value);
    }
    const byRef = new Map<string, Submission[]>();
    for (const r of records) {
      const ref = String(r.fields.ref);
      byRef.set(ref, [...(byRef.get(ref) ?? []), r]);
    }
    const numbers = new Set(records.map((r) => `${r.mode}:${r.number}`));
    let undelivered = 0;
    for await (const _ of kv.list({ prefix: keys.undeliveredJobs() })) undelivered++;
    return {
      records,
      byRef,
      numbersUnique: numbers.size === records.length,
      counter: u64Value((await kv.get(keys.submissionCount(formId, "live", "all"))).value),
      seq: (await kv.get<number>(keys.submissionSeq(formId, "live"))).value ?? 0,
      undelivered,
    };
  } finally {
    kv.close();
  }
}

/** The figures every scenario prints. */
export interface Figures {
  requests: number;
  acknowledged: number;
  stored: number;
  lost: number;
  duplicated: number;
  "5xx": number;
  [extra: string]: number | boolean | string;
}

/** Prints a scenario's figures on one line. */
export function printFigures(name: string, f: Figures): void {
  const parts = Object.entries(f).map(([k, v]) => `${k}=${v}`);
  console.log(`${name}: ${parts.join(" ")}`);
}
