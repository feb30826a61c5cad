import assert from "node:assert/strict";
import { highlightParts, reasonInWords, sentWith, tokenInWords } from "@/lib/admin/signals.ts";

Deno.test("admin signals - spam reasons and the sender in words", () => {
  assert.equal(reasonInWords("filled_too_fast"), "Filled in under 1.5 seconds");
  assert.equal(reasonInWords("links_5"), "5 links in the values");
  assert.equal(
    reasonInWords("burst_from_identity_7"),
    "7 submissions from the same sender just before",
  );
  assert.equal(
    reasonInWords("link_tld_xyz"),
    "A short note linking to a .xyz site (a domain ending much used for spam)",
  );
  assert.match(
    reasonInWords("pitch_words_3"),
    /^A short note with a link and 3 sales-pitch phrases/,
  );
  assert.match(reasonInWords("pitch_words_1"), /and 1 sales-pitch phrase \(/);
  assert.match(reasonInWords("link_shortener"), /shortened link/);
  assert.equal(reasonInWords("link_ip"), "A short note linking to a bare IP address");
  assert.match(reasonInWords("shouting"), /shouts/);
  // A code this list does not know yet still reads as words.
  assert.equal(reasonInWords("model_spammy_text"), "Model spammy text");
  assert.equal(
    sentWith({ via_key: true, origin: "https://a.example" }),
    "A server, with an API key",
  );
  assert.equal(sentWith({ origin: "https://a.example" }), "A browser, from a web page");
  assert.match(sentWith({ user_agent: "curl/8.5.0" }), /without a browser Origin \(curl/);
});

Deno.test("admin signals - the content figure in words and the words that drove it marked", () => {
  assert.equal(reasonInWords("content_0.923"), "Content: 92% spam-like");
  assert.equal(reasonInWords("content_0.999"), "Content: 99% spam-like");
  assert.equal(tokenInWords("url:example.com"), "a link to example.com");
  assert.equal(tokenInWords("meta:links5+"), "five or more links");
  assert.equal(tokenInWords("num:4"), "a 4-digit number");
  assert.equal(tokenInWords("cash"), "“cash”");
  // Whole words only, case and width folded; markup stays text in the parts.
  assert.deepEqual(highlightParts("Get CASH now <b>cashback</b> ＣＡＳＨ", ["cash", "url:x.com"]), [
    { text: "Get ", mark: false },
    { text: "CASH", mark: true },
    { text: " now <b>cashback</b> ", mark: false },
    { text: "ＣＡＳＨ", mark: true },
  ]);
  assert.deepEqual(highlightParts("plain", []), [{ text: "plain", mark: false }]);
});
