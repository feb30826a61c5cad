/**
 * A button that copies a text to the clipboard and says so (for raw API keys and embed
 * snippets). Without JavaScript the text beside it can still be selected by hand.
 * @module
 */
import { useState } from "preact/hooks";

/** Props: the text to copy and the button's label. */
export interface CopyButtonProps {
  text: string;
  label?: string;
  [key: string]: unknown;
}

/** The copy button island. */
export default function CopyButton({ text, label = "Copy" }: CopyButtonProps) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState("copied");
    } catch {
      setState("failed");
    }
    setTimeout(() => setState("idle"), 2500);
  };
  return (
    <span class="copy">
      <button type="button" class="secondary small" onClick={copy}>
        {state === "copied" ? "Copied" : label}
      </button>
      <span role="status" class="muted small">
        {state === "failed" ? "Copy failed: select the text and copy it by hand." : ""}
      </span>
    </span>
  );
}
