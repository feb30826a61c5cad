/**
 * The drafts bar of the hosted page: the notice that answers are saved (said before
 * anything is stored, and that files are not), the save status, and "Email me a link to
 * finish later", all in the page's language. Shown once hydrated (saving needs JavaScript).
 * @module
 */
import { useEffect, useState } from "preact/hooks";
import { uiText } from "@/lib/rules/mod.ts";
import type { DraftsHandle } from "./drafts.tsx";

/** The notice, the save status and the "email me a link" control. */
export function DraftBar(
  { drafts, ttlDays, files, lang }: {
    drafts: DraftsHandle;
    ttlDays: number;
    files: boolean;
    lang: string;
  },
) {
  const [open, setOpen] = useState(false);
  const [email, setEmail] = useState("");
  const [message, setMessage] = useState("");
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  if (!drafts.enabled || !hydrated) return null;
  const label = drafts.status === "idle" ? "" : uiText(lang, `draft_${drafts.status}`);
  const send = async () => setMessage(await drafts.mailLink(email));
  return (
    <div class="draft-bar">
      <p class="draft-notice">
        {uiText(lang, "draft_notice", { days: ttlDays })}
        {files && ` ${uiText(lang, "draft_files")}`}
        <span class="draft-status" role="status">{label}</span>
      </p>
      {open
        ? (
          <div class="draft-link">
            <label>
              {uiText(lang, "draft_link")}
              <input
                type="email"
                autocomplete="email"
                value={email}
                onInput={(e) => setEmail((e.target as HTMLInputElement).value)}
                onKeyDown={(e) => {
                  if (e.key !== "Enter") return;
                  e.preventDefault(); // not the form's submit
                  send();
                }}
              />
            </label>
            <button type="button" onClick={send}>{uiText(lang, "draft_send_link")}</button>
            {message && <p class="draft-message" role="status">{message}</p>}
          </div>
        )
        : (
          <button type="button" class="link-button" onClick={() => setOpen(true)}>
            {uiText(lang, "draft_link")}
          </button>
        )}
    </div>
  );
}
