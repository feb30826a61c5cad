/**
 * The admin's error page: says what happened and where to go next.
 * @module
 */

/** An error page body. */
export function ErrorPage({ status, message }: { status: number; message: string }) {
  const next = status === 403
    ? "Go back, reload the page and try again."
    : status === 404
    ? "Check the address, or go back to your forms."
    : status === 429
    ? "Wait a minute before trying again."
    : "Go back and try again.";
  return (
    <main id="main" class="container">
      <h1>
        {status === 404 ? "Not found" : status === 403 ? "Request blocked" : "Something went wrong"}
      </h1>
      <p class="notice error" role="alert">{message}</p>
      <p>{next}</p>
      <p>
        <a class="button secondary" href="/admin/forms">Back to forms</a>
      </p>
    </main>
  );
}
