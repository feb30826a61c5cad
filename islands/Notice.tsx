/**
 * The admin's one-line notice after an action ("Form saved."). It arrives as `?notice=` on
 * the redirect; once shown, the parameter is taken out of the address (history.replaceState)
 * so a reload or a bookmark does not repeat it.
 * @module
 */
import { useEffect } from "preact/hooks";

/** Props: the notice text. */
export interface NoticeProps {
  text: string;
  [key: string]: unknown;
}

/** The notice island. */
export default function Notice({ text }: NoticeProps) {
  useEffect(() => {
    const url = new URL(location.href);
    if (!url.searchParams.has("notice")) return;
    url.searchParams.delete("notice");
    history.replaceState(history.state, "", url.pathname + url.search + url.hash);
  }, []);
  return <p class="notice ok" role="status">{text}</p>;
}
