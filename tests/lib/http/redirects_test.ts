import assert from "node:assert/strict";
import {
  allowedRedirect,
  errorLocation,
  successLocation,
  withParams,
} from "@/lib/http/redirects.ts";

const BASE = "https://forms.example";
const form = {
  id: "fAbc",
  allowed_origins: ["https://shop.example"],
  redirect: {} as { success?: string; error?: string },
};

Deno.test("redirects - which targets may be followed", async (t) => {
  await t.step("same origin as BASE_URL, relative or absolute", () => {
    assert.equal(allowedRedirect("/thanks", form, BASE)?.href, `${BASE}/thanks`);
    assert.equal(allowedRedirect(`${BASE}/a?b=1`, form, BASE)?.href, `${BASE}/a?b=1`);
  });
  await t.step("an allowed origin, exactly", () => {
    assert.ok(allowedRedirect("https://shop.example/ok", form, BASE));
    assert.equal(allowedRedirect("https://shop.example:8443/ok", form, BASE), null);
    assert.equal(allowedRedirect("http://shop.example/ok", form, BASE), null);
    assert.equal(allowedRedirect("https://sub.shop.example/ok", form, BASE), null);
  });
  await t.step("tricks and junk are refused", () => {
    for (
      const bad of [
        "//evil.example",
        "/\\evil.example",
        "https://shop.example@evil.example/",
        "https://user:pw@shop.example/",
        "javascript:alert(1)",
        "data:text/html,hi",
        "",
        "   ",
        "http://[::1",
        `/${"a".repeat(2001)}`,
        undefined,
      ]
    ) {
      assert.equal(allowedRedirect(bad, form, BASE), null, String(bad));
    }
  });
  await t.step("an empty allowed_origins allows only our own origin", () => {
    const open = { ...form, allowed_origins: [] };
    assert.equal(allowedRedirect("https://shop.example/", open, BASE), null);
    assert.ok(allowedRedirect("/x", open, BASE));
  });
});

Deno.test("redirects - locations", async (t) => {
  await t.step("success: _redirect, then redirect.success, then the thank-you page", () => {
    assert.equal(
      successLocation(form, "/done#x", BASE, "sub_1"),
      `${BASE}/done?submission_id=sub_1#x`,
    );
    const withOwn = { ...form, redirect: { success: "https://shop.example/t?a=1" } };
    assert.equal(
      successLocation(withOwn, "https://evil.example/", BASE, "sub_1"),
      "https://shop.example/t?a=1&submission_id=sub_1",
    );
    assert.equal(
      successLocation(form, undefined, BASE, "sub_1"),
      "/f/fAbc/thanks?submission_id=sub_1",
    );
  });
  await t.step("error: redirect.error, then _redirect, else null (hosted page)", () => {
    const withOwn = { ...form, redirect: { error: "https://shop.example/oops" } };
    assert.equal(
      errorLocation(withOwn, "/x", BASE, { error: "form_closed" }),
      "https://shop.example/oops?error=form_closed",
    );
    assert.equal(
      errorLocation(form, "/x", BASE, { error: "rate_limited" }),
      `${BASE}/x?error=rate_limited`,
    );
    assert.equal(errorLocation(form, "https://evil.example/", BASE, { error: "x" }), null);
    assert.equal(errorLocation(null, "/x", BASE, { error: "not_found" }), null);
  });
  await t.step("withParams replaces a parameter of the same name", () => {
    assert.equal(withParams("/a?error=old&k=1", { error: "new" }), "/a?error=new&k=1");
  });
});
