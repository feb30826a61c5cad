import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { hmacSha256Hex } from "@/lib/hmac.ts";

Deno.test("hmacSha256Hex gives createHmac's digest for every key length and message", () => {
  const messages = ["", "email:ada@example.com", "who:ip:192.0.2.1", "é✓ 日本 🙂", "x".repeat(300)];
  for (const length of [0, 1, 32, 63, 64, 65, 200]) {
    const key = Uint8Array.from({ length }, (_, i) => (i * 37 + length) & 0xff);
    for (const m of messages) {
      const expected = createHmac("sha256", key).update(m).digest("hex");
      assert.equal(hmacSha256Hex(key, m), expected, `key of ${length} bytes, message ${m}`);
      // The prepared pads are reused: a second call agrees with the first.
      assert.equal(hmacSha256Hex(key, m), expected);
    }
  }
});
