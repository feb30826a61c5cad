/**
 * Server-side placement of an island: renders the component to HTML inside a marker the
 * browser entry hydrates, with its props as inert JSON beside it.
 * @module
 */
import type { ComponentType } from "preact";

let counter = 0;

/** JSON safe inside a <script> element (no `</script>` or HTML comment openers). */
function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(
    /&/g,
    "\\u0026",
  );
}

/** Renders `component` with `props` on the server and marks it for hydration as `name`. */
export function Island<P extends Record<string, unknown>>(
  { name, component: Component, props }: { name: string; component: ComponentType<P>; props: P },
) {
  const id = `island-props-${++counter}`;
  return (
    <>
      <script
        type="application/json"
        id={id}
        dangerouslySetInnerHTML={{ __html: scriptSafeJson(props) }}
      />
      <div data-island={name} data-props-id={id}>
        <Component {...props} />
      </div>
      <script type="module" src={`/_islands/${name}.js`} />
    </>
  );
}
