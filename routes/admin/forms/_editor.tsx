/**
 * The form editor shared by "new" and "edit": name, the field-builder island, spam
 * protection, origins, redirects, notifications (./_notify.tsx), hosted page texts and the
 * accepting switch.
 * @module
 */
import FieldBuilder, { type FieldBuilderProps } from "@/islands/FieldBuilder.tsx";
import SubmitButton from "@/islands/SubmitButton.tsx";
import { Island } from "@/lib/ui/island.tsx";
import { uiText } from "@/lib/rules/mod.ts";
import {
  CAPTCHA_PROVIDERS,
  FIELD_TYPES,
  type FieldInput,
  FILE_TYPES,
  type FormDefinition,
} from "@/lib/schemas.ts";
import { Csrf } from "@/routes/admin/_layout.tsx";
import { NotificationSettings } from "./_notify.tsx";

/** What the editor shows: a definition (secret never included) and whether one is stored. */
export interface EditorData {
  def: FormDefinition;
  hasSecret: boolean;
  error?: string;
  details?: string[];
  /** Set when the posted save would raise the schema version: the editor asks first. */
  confirm?: { from: number; retypeSecret?: boolean };
}

/**
 * The editor again after a refused save: the posted definition without its secret, and the
 * problems. An unreadable field list was replaced by the fields shown before, so say so.
 */
export function refusedEditor(
  def: FormDefinition,
  hasSecret: boolean,
  details: string[],
  fieldsUnreadable: boolean,
): EditorData {
  return {
    def: { ...def, captcha: def.captcha ? { ...def.captcha, secret: undefined } : null },
    hasSecret,
    error: fieldsUnreadable
      ? "The field list could not be read, so nothing was saved and the fields below are " +
        "the ones from before:"
      : "The form was not saved. Fix these and save again:",
    details,
  };
}

/**
 * The warning before a save that raises the schema version; its hidden field confirms the
 * version it was shown for (a save by someone else meanwhile asks again).
 */
function VersionWarning({ from, retypeSecret }: { from: number; retypeSecret?: boolean }) {
  return (
    <div class="notice error" role="alert" id="version-warning">
      <p>
        <strong>Not saved yet.</strong> These changes alter what the form accepts, so saving makes
        {" "}
        it schema version {from + 1}. Pages and apps that send <code>schema_version</code> {from}
        {" "}
        then get 409{" "}
        <code>schema_changed</code>: the hosted page and the client library fetch the form again by
        themselves; code that has the number written in needs a redeploy. Check the changes below
        and save again to confirm.
        {retypeSecret && " Type the new CAPTCHA secret key again: it is never sent back."}
      </p>
      <input type="hidden" name="confirm_version" value={String(from)} />
    </div>
  );
}

/** The editor form; posts to `action`. */
export function FormEditor(
  { data, csrf, action, submitLabel }: {
    data: EditorData;
    csrf: string;
    action: string;
    submitLabel: string;
  },
) {
  const d = data.def;
  const captcha = d.captcha ?? null;
  return (
    <form method="post" action={action} class="editor">
      <Csrf token={csrf} />
      {data.confirm && <VersionWarning {...data.confirm} />}
      {data.error && (
        <div class="notice error" role="alert">
          <p>{data.error}</p>
          {data.details && (
            <ul>
              {data.details.map((x) => <li key={x}>{x}</li>)}
            </ul>
          )}
        </div>
      )}
      <label for="form-name">Form name</label>
      <input id="form-name" name="name" type="text" required maxLength={200} value={d.name} />

      <h2>Fields</h2>
      <Island
        name="FieldBuilder"
        component={FieldBuilder}
        props={{
          fields: (d.fields ?? []) as FieldInput[],
          types: [...FIELD_TYPES],
          fileTypes: [...FILE_TYPES],
          steps: (d.steps ?? []) as FieldBuilderProps["steps"],
          translations: (d.translations ?? {}) as FieldBuilderProps["translations"],
          defaultLanguage: d.default_language ?? "en",
          texts: {
            title: d.name ?? "",
            submit: uiText(d.default_language ?? "en", "submit"),
            success: d.thank_you ?? "",
          },
        }}
      />

      <h2>Spam protection</h2>
      <div class="row2">
        <div>
          <label for="captcha-provider">CAPTCHA</label>
          <select id="captcha-provider" name="captcha_provider">
            {CAPTCHA_PROVIDERS.map((p) => (
              <option value={p} selected={(captcha?.provider ?? "none") === p}>
                {p === "altcha" ? "altcha (self-hosted proof of work)" : p}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="honeypot">Honeypot field name</label>
          <input
            id="honeypot"
            name="honeypot"
            type="text"
            value={d.honeypot ?? ""}
            placeholder="_gotcha"
            aria-describedby="honeypot-help"
          />
          <p class="help" id="honeypot-help">
            A hidden input bots fill in. Leave empty for none.
          </p>
        </div>
        <div>
          <label for="site-key">Site key</label>
          <input id="site-key" name="captcha_site_key" type="text" value={captcha?.siteKey ?? ""} />
        </div>
        <div>
          <label for="secret">Secret key</label>
          <input
            id="secret"
            name="captcha_secret"
            type="password"
            autocomplete="off"
            placeholder={data.hasSecret ? "Stored. Leave blank to keep it." : ""}
            aria-describedby="secret-help"
          />
          <p class="help" id="secret-help">
            {data.hasSecret
              ? "A secret is stored; it is never shown again."
              : "Needed for turnstile, hcaptcha and recaptcha."}
          </p>
        </div>
      </div>

      <h2>Where submissions may come from</h2>
      <label for="origins">Allowed origins</label>
      <textarea
        id="origins"
        name="allowed_origins"
        rows={3}
        placeholder="https://example.com"
        aria-describedby="origins-help"
      >
        {(d.allowed_origins ?? []).join("\n")}
      </textarea>
      <p class="help" id="origins-help">
        One per line. Browsers on other origins are refused (403). Empty allows any origin.
      </p>
      <div class="row2">
        <div>
          <label for="redirect-success">Redirect after success</label>
          <input
            id="redirect-success"
            name="redirect_success"
            type="url"
            value={d.redirect?.success ?? ""}
            placeholder="https://example.com/thanks"
          />
        </div>
        <div>
          <label for="redirect-error">Redirect after an error</label>
          <input
            id="redirect-error"
            name="redirect_error"
            type="url"
            value={d.redirect?.error ?? ""}
            placeholder="https://example.com/oops"
          />
        </div>
      </div>
      <NotificationSettings def={d} />
      <h2>Hosted page texts</h2>
      <label for="intro">Introduction</label>
      <textarea id="intro" name="intro" rows={3} maxLength={2000} aria-describedby="intro-help">
        {d.intro ?? ""}
      </textarea>
      <p class="help" id="intro-help">
        Shown under the form's name on its hosted page. Plain text; a blank line starts a new
        paragraph.
      </p>
      <label for="thank-you">Thank-you message</label>
      <textarea
        id="thank-you"
        name="thank_you"
        rows={2}
        maxLength={1000}
        aria-describedby="thank-you-help"
      >
        {d.thank_you ?? ""}
      </textarea>
      <p class="help" id="thank-you-help">
        Shown on the hosted thank-you page. Empty: “Your response to (form name) was received.”
      </p>
      <label class="check">
        <input type="checkbox" name="accepting" checked={d.accepting !== false} />{" "}
        Accepting submissions
      </label>
      <div class="form-actions">
        <Island
          name="SubmitButton"
          component={SubmitButton}
          props={{
            label: data.confirm ? `Save as schema version ${data.confirm.from + 1}` : submitLabel,
            busyLabel: "Saving…",
          }}
        />
      </div>
    </form>
  );
}
