import assert from "node:assert/strict";
import { h } from "preact";
import { renderToString } from "preact-render-to-string";
import { createDefine, type DataOf, isPageResult, page } from "@/lib/ui/define.ts";

interface Ctx {
  n: number;
}
const define = createDefine<Ctx, { csrf: string }>();

const handler = define.handlers<{ label: string; n: number }>({
  GET(ctx) {
    if (ctx.n < 0) return new Response(null, { status: 303, headers: { location: "/x" } });
    return page({ label: "count", n: ctx.n }, { title: "Count", status: 201 });
  },
});

const Page = define.page<typeof handler>(({ data, csrf }) => {
  // @ts-expect-error the component's data is exactly what the handler renders
  const _missing: string = data.nope;
  return h("p", { "data-csrf": csrf }, `${data.label}: ${data.n.toFixed(0)}`);
});

Deno.test("ui - define: a handler's data is its page's props", async (t) => {
  await t.step("the data type is inferred from the handlers", () => {
    const data: DataOf<typeof handler, Ctx> = { label: "x", n: 1 };
    // @ts-expect-error a field of the wrong type is refused
    const wrong: DataOf<typeof handler, Ctx> = { label: 1, n: 1 };
    assert.ok(data && wrong);
  });

  await t.step("page() results render; responses pass through", async () => {
    const result = await handler.GET!({ n: 3 });
    assert.ok(isPageResult(result));
    assert.equal(result.status, 201);
    assert.equal(result.title, "Count");
    const html = renderToString(h(Page, { data: result.data, csrf: "tok" }));
    assert.equal(html, '<p data-csrf="tok">count: 3</p>');
    const redirect = await handler.GET!({ n: -1 });
    assert.ok(!isPageResult(redirect));
    assert.equal(redirect.status, 303);
  });

  await t.step("handlers without a page render nothing", async () => {
    const only = define.handlers({ POST: () => new Response(null, { status: 204 }) });
    // Their data type is `never`: no value, not even undefined, is a page's data.
    const none: [DataOf<typeof only, Ctx>] extends [never] ? true : false = true;
    // @ts-expect-error nothing can be rendered as the data of a module without a page
    const data: DataOf<typeof only, Ctx> = undefined;
    const result = await only.POST!({ n: 1 });
    assert.ok(none && data === undefined);
    assert.ok(!isPageResult(result));
    assert.equal(result.status, 204);
  });
});
