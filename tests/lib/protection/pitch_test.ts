import assert from "node:assert/strict";
import { pitchSigns, siteOf, siteOfHost } from "@/lib/protection/pitch.ts";
import { linkStats, scoreSpam, type SpamInput } from "@/lib/protection/score.ts";
import { loadModel } from "@/lib/spam/load.ts";
import { scoreText } from "@/lib/spam/model.ts";

const NONE = new Set<string>();

function verdict(message: string, email = "someone@mail.example", p?: number) {
  const fields = { name: "Someone", email, message };
  const input: SpamInput = {
    signals: { ip: "203.0.113.5", user_agent: "Mozilla/5.0", fill_ms: 45_000 },
    fields,
    urlFields: new Set(),
    ownSites: new Set([siteOf(email), "example.com"]),
    recentFromIdentity: 0,
    duplicate: false,
  };
  return scoreSpam(p === undefined ? input : { ...input, content: { p, tokens: [] } });
}

Deno.test("pitch signs - sites of hosts, addresses and origins", () => {
  assert.equal(siteOfHost("shop.example.co.uk"), "example.co.uk");
  assert.equal(siteOfHost("www.Example.com."), "example.com");
  assert.equal(siteOf("ada@mail.lovelace.dev"), "lovelace.dev");
  assert.equal(siteOf("https://www.example.com:8443/contact"), "example.com");
  assert.equal(siteOf("not an address"), "");
});

Deno.test("pitch signs - where a link leads, pitch phrases, shouting", () => {
  assert.deepEqual(pitchSigns("no link here, guaranteed income", NONE), []);
  assert.deepEqual(pitchSigns("see http://192.0.2.7/login", NONE), [[25, "link_ip"]]);
  assert.deepEqual(pitchSigns("see https://bit.ly/x1", NONE), [[25, "link_shortener"]]);
  // A host under a shortener's domain is another service (Google Photos shares).
  assert.deepEqual(pitchSigns("photos https://photos.app.goo.gl/x1", NONE), []);
  assert.deepEqual(pitchSigns("see http://a-b.xyz/x", NONE), [[15, "link_tld_xyz"]]);
  // The sender's own site says nothing by where it leads; what the text says still counts.
  assert.deepEqual(pitchSigns("our startup https://start.xyz", new Set(["start.xyz"])), []);
  assert.deepEqual(
    pitchSigns("Guaranteed SEO rankings, cheap! https://rank.example", new Set(["rank.example"])),
    [[45, "pitch_words_4"]],
  );
  // Sums and percentages are one phrase together; singular and plural are one.
  assert.deepEqual(pitchSigns("$49, 100% and 50% off: loan loans https://a.example", NONE), [
    [30, "pitch_words_2"],
  ]);
  assert.deepEqual(pitchSigns("CLICK THIS LINK NOW https://a.example/x", NONE), [[15, "shouting"]]);
  assert.deepEqual(pitchSigns("wow!!! https://a.example/x", NONE), [[15, "shouting"]]);
  assert.deepEqual(pitchSigns("VAT and API https://a.example/x", NONE), []);
});

Deno.test("pitch signs - a short pitch with one link is flagged, with its reasons", () => {
  const v = verdict(
    "Get 1000 Instagram followers cheap, guaranteed! Order: http://insta-boost.biz",
  );
  assert.deepEqual(v.reasons, ["link_tld_biz", "pitch_words_3"]);
  assert.equal(v.status, "suspicious");
  // Long text is not a short note: the same pitch inside a long mail adds nothing here.
  const long = `${"The patch applies cleanly to the 2.4 tree. ".repeat(10)}cheap SEO http://a.xyz`;
  assert.ok(linkStats({ message: long }, new Set()).chars >= 400);
  assert.deepEqual(verdict(long).reasons, []);
});

Deno.test("pitch signs - real short notes with a link stay completed", async () => {
  const notes: Array<[string, string]> = [
    ["What are your opening hours?", "ada@mail.example"],
    [
      "My portfolio is at https://juliahart.design, I'd love to join the open call.",
      "j@juliahart.design",
    ],
    ["Is the $49 plan 100% refundable? https://example.com/pricing says so.", "jo@gmail.example"],
    [
      "Hi! I'm a photographer, rates from $150. Portfolio: https://janedoe.example",
      "jd@gmail.example",
    ],
    [
      "The cheapest TV on https://shop.example.net/tv is out of stock. Alternatives?",
      "a@b.example",
    ],
    ["Can you check my parcel? Tracking link: https://bit.ly/3abcXYZ", "max@gmail.example"],
    ["URGENT!!! https://pay.example.net/checkout charges me twice. PLEASE HELP", "l@g.example"],
    ["I run a small SEO blog (https://adawrites.xyz), may I review your product?", "a@p.example"],
    [
      "Is the 5-star kettle from https://www.amazon.com/dp/B01 in your shop? Best price?",
      "t@g.example",
    ],
  ];
  const model = await loadModel();
  for (const [message, email] of notes) {
    // Read by the committed model, as the scoring job reads them.
    const v = verdict(message, email, scoreText(model, { text: `Someone\n${message}` }).p);
    assert.equal(v.status, "completed", `${message}: ${v.reasons.join("+")} (${v.score})`);
  }
});
