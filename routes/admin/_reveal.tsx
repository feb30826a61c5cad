/**
 * The one-time reveal of a new secret (an API key, a webhook signing secret): shown once,
 * with a copy button.
 * @module
 */
import type { ComponentChildren } from "preact";
import { Island } from "@/lib/ui/island.tsx";
import CopyButton from "@/islands/CopyButton.tsx";

/** The reveal box; `id` names the secret's element (tests and scripts find it by id). */
export function SecretReveal(
  { heading, id, secret }: { heading: ComponentChildren; id: string; secret: string },
) {
  return (
    <div class="notice ok reveal" role="status">
      <p>
        <strong>{heading}</strong> Copy it now: this is the only time it is shown.
      </p>
      <div class="key-line">
        <code class="key" id={id}>{secret}</code>{" "}
        <Island name="CopyButton" component={CopyButton} props={{ text: secret }} />
      </div>
    </div>
  );
}
