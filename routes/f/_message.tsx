/**
 * The hosted pages' message page: a form that is missing, closed or refused a request.
 * @module
 */
import type { VNode } from "preact";
import { htmlPage } from "./_page.ts";

/** A short page with a heading, a message and an optional link. */
export function MessagePage(
  { heading, message, items, link }: {
    heading: string;
    message: string;
    /** Listed below the message (a refused post's field errors). */
    items?: string[];
    link?: { href: string; label: string };
  },
): VNode {
  return (
    <main class="container hosted-page">
      <h1>{heading}</h1>
      <p>{message}</p>
      {items?.length
        ? (
          <ul>
            {items.map((it, i) => <li key={i}>{it}</li>)}
          </ul>
        )
        : null}
      {link && (
        <p>
          <a href={link.href}>{link.label}</a>
        </p>
      )}
    </main>
  );
}

/** The hosted 404 (a missing form and a suspended workspace look the same). */
export function notFoundPage(): Response {
  return htmlPage({
    title: "Form not found",
    status: 404,
    store: false,
    body: (
      <MessagePage
        heading="Form not found"
        message="This form does not exist or is no longer available. Check the address you were given."
      />
    ),
  });
}

/** A hosted error page for a request that failed before a form could be shown. */
export function errorPage(status: number, message: string): Response {
  return htmlPage({
    title: "Something went wrong",
    status,
    store: false,
    body: <MessagePage heading="Something went wrong" message={message} />,
  });
}

/**
 * The page a refused post from another site's form gets when it names no error target:
 * the refusal's status, what was wrong (each field error) and a link back to the form.
 */
export function refusedPage(
  status: number,
  message: string,
  items: string[],
  back: string,
): Response {
  return htmlPage({
    title: "Your response was not sent",
    status,
    store: false,
    body: (
      <MessagePage
        heading="Your response was not sent"
        message={message}
        items={items}
        link={{ href: back, label: "Back to the form" }}
      />
    ),
  });
}
