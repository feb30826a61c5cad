import assert from "node:assert/strict";
import { htmlToText, tokenize } from "@/lib/spam/tokens.ts";

Deno.test("spam tokens - words, links, addresses, markup and numbers", async (t) => {
  await t.step("lower-cased distinct words in order of first appearance", () => {
    assert.deepEqual(tokenize("Hello hello, World! It's fine."), [
      "hello",
      "world",
      "it's",
      "fine",
    ]);
  });

  await t.step("links become host tokens and a link count; addresses their domain", () => {
    const tokens = tokenize(
      "see https://www.Shop.Example.com/a?b=1 and http://10.0.0.1/x, mail bob@Mail.Example.org",
    );
    assert.ok(tokens.includes("url:example.com"), String(tokens));
    assert.ok(tokens.includes("url:ip"));
    assert.ok(tokens.includes("meta:links2+"));
    assert.ok(tokens.includes("meta:email"));
    assert.ok(["mail", "example", "org"].every((w) => tokens.includes(w)));
    assert.ok(!tokens.some((x) => x.includes("bob")), "the local part of an address is dropped");
    assert.ok(
      tokenize("a b c http://a.test http://b.test http://c.test http://d.test http://e.test")
        .includes("meta:links5+"),
    );
  });

  await t.step("markup is stripped to text, comments vanish inside words", () => {
    const html = "<html><style>p{color:red}</style><p>Mo<!--x-->rtgage &amp; r&#97;tes</p></html>";
    assert.equal(htmlToText(html).html, true);
    const tokens = tokenize(html);
    assert.ok(tokens.includes("meta:html"));
    assert.ok(tokens.includes("mortgage") && tokens.includes("rates"), String(tokens));
    assert.ok(!tokens.includes("color"), "style content is not text");
    // One stray angle bracket is not markup.
    assert.equal(htmlToText("a <b> c").html, false);
  });

  await t.step("numbers collapse to their length, junk words are dropped, shouting counts", () => {
    const tokens = tokenize(`Call 5551234 now $ ${"x".repeat(30)} FREE CASH NOW WIN BIG !!!`);
    assert.ok(tokens.includes("num:7"));
    assert.ok(tokens.includes("$") && tokens.includes("!!!"));
    assert.ok(!tokens.some((x) => x.length >= 30));
    assert.ok(tokens.includes("meta:caps5+"));
    assert.ok(!tokenize("I am OK, see NASA").includes("meta:caps5+"));
  });

  await t.step("stable: the same text gives the same tokens; NFKC folds look-alikes", () => {
    const text = "Ｆｒｅｅ ﬁnance offer, visit www.example.test today";
    assert.deepEqual(tokenize(text), tokenize(text));
    assert.ok(tokenize(text).includes("free") && tokenize(text).includes("finance"));
  });
});

Deno.test("spam tokens - a link's target in markup counts as a link", () => {
  const tokens = tokenize('<p>Great <a href="http://deals.example.biz/x">offer</a></p><br>');
  assert.ok(tokens.includes("url:example.biz") && tokens.includes("meta:link"), String(tokens));
  assert.ok(tokens.includes("offer"));
});
