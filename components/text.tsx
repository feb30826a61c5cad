/**
 * A form owner's plain text (hosted intro, thank-you message) as paragraphs: a blank line
 * starts a new one, a single newline stays a line break. Never HTML: Preact escapes it.
 * @module
 */

/** Paragraphs of plain text. */
export function PlainText({ text, class: cls }: { text: string; class?: string }) {
  const paras = text.split(/\r?\n\s*\r?\n/).map((p) => p.trim()).filter(Boolean);
  return (
    <>
      {paras.map((p, i) => <p key={i} class={cls ? `${cls} plain-text` : "plain-text"}>{p}</p>)}
    </>
  );
}
