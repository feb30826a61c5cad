/**
 * Forms as code: the plan that takes a workspace's forms to what `formwell.json` says.
 * Pure: it compares the file's forms with the server's, by key. A part of a definition the
 * file leaves out is left as the server has it; a part it gives is compared with what the
 * server stores (fields exactly, in order; other parts by the values the file sets, since the
 * server fills in defaults; a CAPTCHA secret is never shown, so never compared).
 * @module
 */
import type { Form, FormCreate } from "../types.ts";

/** A form of `formwell.json`: a definition with its key. */
export type FileForm = FormCreate & { key: string };

/** `formwell.json`. */
export interface FormwellFile {
  $schema?: string;
  forms: FileForm[];
}

/** What a deploy does (and prints): keys of the forms to create, change and leave. */
export interface DeployPlan {
  create: string[];
  update: string[];
  unchanged: string[];
}

/** A form's fields the file drops while the server's form has stored submissions. */
export interface Removal {
  key: string;
  fields: string[];
}

/** The plan with what applying it sends. */
export interface PlanDetail extends DeployPlan {
  /** Per key to update: the parts that differ, as a PATCH body. */
  patches: Record<string, Record<string, unknown>>;
  /** Per key to update: the names of the server's fields the file no longer has. */
  dropped: Record<string, string[]>;
}

const KEY = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** Checks a parsed `formwell.json`; returns its problems (empty when it can be planned). */
export function fileProblems(file: unknown): string[] {
  const forms = (file as FormwellFile | null)?.forms;
  if (!file || typeof file !== "object" || !Array.isArray(forms)) {
    return ['formwell.json must be an object with a "forms" array.'];
  }
  const out: string[] = [];
  const seen = new Set<string>();
  forms.forEach((f, i) => {
    if (!f || typeof f !== "object") {
      return out.push(`forms[${i}] is not an object.`);
    }
    if (typeof f.key !== "string" || !KEY.test(f.key)) {
      out.push(
        `forms[${i}].key must be a slug (a-z, 0-9, - and _; at most 64).`,
      );
    } else if (seen.has(f.key)) {
      out.push(`forms[${i}].key "${f.key}" is used twice.`);
    } else seen.add(f.key);
    if (typeof f.name !== "string" || !f.name.trim()) {
      out.push(`forms[${i}].name is missing.`);
    }
  });
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Whether the server's `have` holds every value `want` sets (extra server values pass). */
function covers(want: unknown, have: unknown): boolean {
  if (Array.isArray(want)) {
    return Array.isArray(have) && want.length === have.length &&
      want.every((w, i) => covers(w, have[i]));
  }
  if (isObject(want)) {
    return isObject(have) &&
      Object.entries(want).every(([k, w]) => w === undefined || covers(w, have[k]));
  }
  return want === have;
}

/** Whether a part the file sets to null is absent on the server. */
function cleared(have: unknown): boolean {
  return have === null || have === undefined ||
    (Array.isArray(have) && have.length === 0) ||
    (isObject(have) && !Object.keys(have).length);
}

/** A field as compared: no `required: false` (the default), no id unless the file gives one. */
function fieldOf(
  f: Record<string, unknown>,
  keepId: boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(f)) {
    if (
      v === undefined || (k === "required" && v === false) ||
      (k === "id" && !keepId)
    ) continue;
    out[k] = v;
  }
  return out;
}

function canonical(v: unknown): string {
  return JSON.stringify(
    v,
    (_k, x) =>
      isObject(x)
        ? Object.fromEntries(
          Object.entries(x).sort(([a], [b]) => a < b ? -1 : 1),
        )
        : x,
  );
}

function sameFields(want: unknown, have: unknown): boolean {
  if (
    !Array.isArray(want) || !Array.isArray(have) || want.length !== have.length
  ) return false;
  return want.every((w, i) =>
    canonical(fieldOf(w, "id" in w)) === canonical(fieldOf(have[i], "id" in w))
  );
}

/** Whether the server's form already has the part `part` as the file gives it. */
function samePart(part: string, want: unknown, form: Form): boolean {
  const have = form[part];
  if (want === null) return cleared(have);
  if (part === "fields") return sameFields(want, have);
  if (part === "captcha" && isObject(want)) {
    const { secret: _s, ...shown } = want;
    return covers(shown, have);
  }
  return covers(want, have);
}

/** The parts of `want` that differ from the server's `form`, as a PATCH body. */
export function patchFor(want: FileForm, form: Form): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const [part, value] of Object.entries(want)) {
    if (part === "key" || value === undefined) continue;
    if (!samePart(part, value, form)) patch[part] = value;
  }
  return patch;
}

/** The plan from the file's forms and the server's forms that have keys. */
export function planDeploy(
  file: FormwellFile,
  server: ReadonlyMap<string, Form>,
): PlanDetail {
  const plan: PlanDetail = {
    create: [],
    update: [],
    unchanged: [],
    patches: {},
    dropped: {},
  };
  for (const want of file.forms) {
    const form = server.get(want.key);
    if (!form) {
      plan.create.push(want.key);
      continue;
    }
    const patch = patchFor(want, form);
    if (!Object.keys(patch).length) {
      plan.unchanged.push(want.key);
      continue;
    }
    plan.update.push(want.key);
    plan.patches[want.key] = patch;
    if (Array.isArray(patch.fields)) {
      const kept = new Set(
        (patch.fields as Array<{ name?: string }>).map((f) => f.name),
      );
      const gone = form.fields.map((f) => f.name).filter((n) => !kept.has(n));
      if (gone.length) plan.dropped[want.key] = gone;
    }
  }
  return plan;
}
