import assert from "node:assert/strict";
import { reasonInWords, sentWith } from "@/lib/admin/signals.ts";

Deno.test("admin signals - spam reasons and the sender in words", () => {
  assert.equal(reasonInWords("filled_too_fast"), "Filled in under 1.5 seconds");
  assert.equal(reasonInWords("links_5"), "5 links in the values");
  assert.equal(
    reasonInWords("burst_from_identity_7"),
    "7 submissions from the same sender just before",
  );
  // A code this list does not know yet still reads as words.
  assert.equal(reasonInWords("model_spammy_text"), "Model spammy text");
  assert.equal(
    sentWith({ via_key: true, origin: "https://a.example" }),
    "A server, with an API key",
  );
  assert.equal(sentWith({ origin: "https://a.example" }), "A browser, from a web page");
  assert.match(sentWith({ user_agent: "curl/8.5.0" }), /without a browser Origin \(curl/);
});
