/**
 * The admin's error page: says what happened and links back to where the user came from.
 * @module
 */

/** Where the error page's link goes, and what it says. */
export interface BackLink {
  href: string;
  label: string;
}

/** An error page body; `refused` marks a refusal because of the user's role. */
export function ErrorPage(
  { status, message, back, refused }: {
    status: number;
    message: string;
    back: BackLink;
    refused?: boolean;
  },
) {
  const title = refused
    ? "Your role does not allow this"
    : status === 404
    ? "Not found"
    : status === 403
    ? "Request blocked"
    : "Something went wrong";
  const next = refused
    ? null
    : status === 403
    ? "Go back, reload the page and try again."
    : status === 404
    ? "Check the address, or go back to your forms."
    : status === 429
    ? "Wait a minute before trying again."
    : "Go back and try again.";
  return (
    <main id="main" class="container">
      <h1>{title}</h1>
      <p class="notice error" role="alert">{message}</p>
      {next && <p>{next}</p>}
      <p>
        <a class="button secondary" href={back.href}>{back.label}</a>
      </p>
    </main>
  );
}
