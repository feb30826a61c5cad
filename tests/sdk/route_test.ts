/**
 * `GET /sdk/formwell.js`: an ES module any origin may load, a versioned content-hash ETag
 * answered with 304, a day's cache, a linked source map; and the library build itself
 * (prebuilt files used only while they match the sources; the core under its size budget).
 */
import assert from "node:assert/strict";
import { testEnv } from "@/tests/helpers.ts";
import { SDK_CACHE_CONTROL } from "@/routes/sdk.ts";
import { bundleSdk, gzipBytes, sdkVersion } from "@/lib/ui/sdk_bundle.ts";
import { CORE_GZIP_BUDGET } from "@/lib/ui/build.ts";

Deno.test("sdk route - /sdk/formwell.js is served to any origin with a versioned ETag", async (t) => {
  const env = await testEnv();
  const version = await sdkVersion();
  const res = await env.request("/sdk/formwell.js", {
    headers: { origin: "https://site.example" },
  });
  const code = await res.text();
  await t.step(
    "an ES module exporting Formwell, CORS *, long cache, no immutable",
    () => {
      assert.equal(res.status, 200);
      assert.equal(
        res.headers.get("content-type"),
        "text/javascript; charset=utf-8",
      );
      assert.equal(res.headers.get("access-control-allow-origin"), "*");
      assert.equal(res.headers.get("cache-control"), SDK_CACHE_CONTROL);
      assert.match(SDK_CACHE_CONTROL, /public, max-age=\d{5,}/);
      assert.doesNotMatch(SDK_CACHE_CONTROL, /immutable/);
      assert.match(code, /export\{[^}]*\bFormwell\b/);
      assert.match(code, /\/\/# sourceMappingURL=formwell\.js\.map\s*$/);
    },
  );
  const etag = res.headers.get("etag")!;
  await t.step(
    "the ETag is the version and a content hash; If-None-Match answers 304",
    async () => {
      assert.match(
        etag,
        new RegExp(`^"${version.replaceAll(".", "\\.")}-[0-9a-f]{16}"$`),
      );
      const again = await env.request("/sdk/formwell.js", {
        headers: { "if-none-match": etag },
      });
      assert.equal(again.status, 304);
      assert.equal(await again.text(), "");
      assert.equal(again.headers.get("etag"), etag);
      assert.equal(again.headers.get("access-control-allow-origin"), "*");
      const other = await env.request("/sdk/formwell.js", {
        headers: { "if-none-match": '"0-x"' },
      });
      assert.equal(other.status, 200);
      await other.body?.cancel();
    },
  );
  await t.step("the source map holds the TypeScript sources", async () => {
    const map = await env.request("/sdk/formwell.js.map");
    assert.equal(map.status, 200);
    const json = await map.json();
    assert.ok(
      json.sources.some((s: string) => s.endsWith("src/client.ts")),
      json.sources.join(),
    );
    assert.equal(json.sources.length, json.sourcesContent.length);
  });
  await t.step("other names are 404", async () => {
    for (
      const path of ["/sdk/other.js", "/sdk/build.json", "/sdk/../deno.json"]
    ) {
      const r = await env.request(path);
      assert.equal(r.status, 404, path);
      await r.body?.cancel();
    }
  });
  env.close();
});

Deno.test("sdk build - the browser core stays under its gzip budget and loads in Deno", async () => {
  const files = await bundleSdk();
  const core = files.get("formwell.js")!.contents;
  const gzip = await gzipBytes(core);
  assert.ok(gzip < CORE_GZIP_BUDGET, `formwell.js is ${gzip} bytes gzip`);
  assert.match(
    files.get("react.js")!.contents,
    /from"\.\/formwell\.js"/,
    "react.js shares the core",
  );
  // The built module runs outside browsers (no DOM global at import time).
  const url = `data:text/javascript;base64,${btoa(core)}`;
  const mod = await import(url);
  const fw = new mod.Formwell({ baseUrl: "https://forms.example" });
  assert.equal(fw.baseUrl, "https://forms.example");
});
