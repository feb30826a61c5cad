/**
 * The hosted form's notice above the fields: a message, and for field errors a summary
 * whose items link to the fields and follow them as they are fixed.
 * @module
 */
import type { Field } from "@/lib/schemas.ts";
import { ids } from "@/components/fields.ts";
import { uiText } from "@/lib/rules/mod.ts";
import type { HostedNotice } from "./types.ts";

/** The error summary above the form; each item links to its field. */
export function Notice({ notice, fields }: { notice: HostedNotice; fields: Field[] }) {
  const byName = new Map(fields.map((f) => [f.name, f]));
  return (
    <div>
      <p>{notice.message}</p>
      {notice.items?.length
        ? (
          <ul>
            {notice.items.map((it) => {
              const f = byName.get(it.field);
              return (
                <li key={it.field}>
                  {f ? <a href={`#${ids(f).control}`}>{it.message}</a> : it.message}
                </li>
              );
            })}
          </ul>
        )
        : null}
    </div>
  );
}

/** A field summary of `errors`, in the fields' order. */
export function summary(
  errors: Record<string, string>,
  fields: Field[],
  lang: string,
): HostedNotice {
  const items = fields.filter((f) => errors[f.name]).map((f) => ({
    field: f.name,
    message: errors[f.name],
  }));
  const n = items.length;
  return {
    kind: "error",
    message: n === 1 ? uiText(lang, "correct_one") : uiText(lang, "correct_many", { n }),
    items,
  };
}

/**
 * The notice as shown: a field summary follows the fields' current errors (a fixed field
 * leaves it, and it goes once none is left); any other notice is shown as it is.
 */
export function liveNotice(
  notice: HostedNotice | null,
  errors: Record<string, string>,
  fields: Field[],
  lang: string,
): HostedNotice | null {
  if (!notice?.items) return notice;
  const now = summary(errors, fields, lang);
  if (!now.items?.length) return notice.extra ? { kind: "error", message: notice.extra } : null;
  if (notice.extra) now.message = `${now.message} ${notice.extra}`;
  return { ...now, extra: notice.extra };
}
