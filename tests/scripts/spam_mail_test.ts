import assert from "node:assert/strict";
import { decodeWords, mailText } from "@/scripts/spam/mail.ts";

const HEAD =
  "Return-Path: <a@b.test>\r\nReceived: from x by y\r\n\tfor z\r\nFrom: A <a@b.test>\r\n";

Deno.test("spam mail - a raw message becomes subject and body text", async (t) => {
  await t.step("headers are dropped except the (folded) Subject", () => {
    const m = mailText(`${HEAD}Subject: Lunch\r\n  on Friday\r\n\r\nSee you there.\r\n`);
    assert.deepEqual(m, { subject: "Lunch on Friday", text: "See you there." });
  });

  await t.step("quoted-printable and base64 bodies are decoded with their charset", () => {
    const qp = mailText(
      `${HEAD}Subject: x\nContent-Type: text/plain; charset=iso-8859-1\n` +
        `Content-Transfer-Encoding: quoted-printable\n\nCaf=E9 au l=\nait =3D good\n`,
    );
    assert.equal(qp.text, "Café au lait = good");
    const b64 = mailText(
      `${HEAD}Content-Type: text/plain; charset="utf-8"\nContent-Transfer-Encoding: base64\n\n` +
        btoa(String.fromCharCode(...new TextEncoder().encode("Grüße aus Köln")))
          .replace(/(.{8})/g, "$1\n") +
        "\n",
    );
    assert.equal(b64.text, "Grüße aus Köln");
  });

  await t.step("a multipart alternative gives its plain part; mixed keeps text parts only", () => {
    const m = mailText(
      `${HEAD}Content-Type: multipart/mixed; boundary="B1"\n\npreamble\n--B1\n` +
        `Content-Type: multipart/alternative; boundary=B2\n\n--B2\nContent-Type: text/plain\n\n` +
        `plain words\n--B2\nContent-Type: text/html\n\n<p>html words</p>\n--B2--\n--B1\n` +
        `Content-Type: image/gif\nContent-Transfer-Encoding: base64\n\nR0lGODlh\n--B1\n` +
        `Content-Type: text/html\n\n<b>second</b>\n--B1--\nepilogue\n`,
    );
    assert.equal(m.text, "plain words\n<b>second</b>");
  });

  await t.step("encoded words in the subject are decoded", () => {
    assert.equal(
      decodeWords("=?utf-8?B?R3LDvMOfZQ==?= and =?iso-8859-1?Q?caf=E9_time?="),
      "Grüße and café time",
    );
    assert.equal(mailText("Subject: =?bogus?Q?ok?=\n\nx").subject, "ok");
    assert.equal(decodeWords("=?utf-8?Q?a?= =?utf-8?Q?b?= c"), "ab c");
  });
});
