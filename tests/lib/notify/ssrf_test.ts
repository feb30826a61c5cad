/**
 * Webhook target rules over URL forms: IPv6 spellings of private IPv4 (compatible, mapped,
 * NAT64, 6to4, Teredo), and the port policy (443, 8080, 8443 and unprivileged ports
 * except well-known internal services), all lifted by `WEBHOOK_ALLOW_PRIVATE=1`.
 */
import assert from "node:assert/strict";
import { checkTargetUrl, isAllowedPort, TargetRefused } from "@/lib/notify/ssrf.ts";
import { makeKey, makeWorkspace, postJson, testEnv } from "../../helpers.ts";

/** Targets refused without WEBHOOK_ALLOW_PRIVATE, and what the refusal says. */
const REFUSED: [string, RegExp][] = [
  // IPv4-compatible IPv6 (::/96): loopback, 10/8, a public address, unspecified.
  ["https://[::127.0.0.1]/x", /public address/],
  ["https://[::7f00:1]/x", /public address/],
  ["https://[::a00:1]/x", /public address/],
  ["https://[::10.0.0.1]/x", /public address/],
  ["https://[::8.8.8.8]/x", /public address/],
  ["https://[::]/x", /public address/],
  ["https://[::2]/x", /public address/],
  // IPv4-mapped, SIIT, NAT64 (well-known and local-use), 6to4, Teredo.
  ["https://[::ffff:127.0.0.1]/x", /public address/],
  ["https://[::ffff:a00:1]/x", /public address/],
  ["https://[::ffff:0:a00:1]/x", /public address/],
  ["https://[64:ff9b::a00:1]/x", /public address/],
  ["https://[64:ff9b::7f00:1]/x", /public address/],
  ["https://[64:ff9b:1::a00:1]/x", /public address/],
  ["https://[2002:a00:1::1]/x", /public address/],
  ["https://[2002:7f00:1::1]/x", /public address/],
  ["https://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/x", /public address/],
  // Other IPv6 ranges that are not public unicast.
  ["https://[fec0::1]/x", /public address/],
  ["https://[100::1]/x", /public address/],
  ["https://[fe80::1%25eth0]/x", /absolute URL|public address/],
  // IPv4 spellings the URL parser turns into private addresses.
  ["https://2130706433/x", /public address/],
  ["https://0x7f.1/x", /public address/],
  ["https://0177.0.0.1/x", /public address/],
  ["https://10.1/x", /public address/],
  // Ports: privileged ones other than 443, and internal services above 1023.
  ["https://hooks.example.com:22/x", /port 22/],
  ["https://hooks.example.com:25/x", /port 25/],
  ["https://hooks.example.com:80/x", /port 80/],
  ["https://hooks.example.com:1/x", /port 1\b/],
  ["https://hooks.example.com:2375/x", /port 2375/],
  ["https://hooks.example.com:3306/x", /port 3306/],
  ["https://hooks.example.com:5432/x", /port 5432/],
  ["https://hooks.example.com:6379/x", /port 6379/],
  ["https://hooks.example.com:9200/x", /port 9200/],
  ["https://hooks.example.com:11211/x", /port 11211/],
  ["https://hooks.example.com:27017/x", /port 27017/],
  ["http://hooks.example.com/x", /https/],
];

/** Targets accepted as they are. */
const ACCEPTED = [
  "https://hooks.example.com/x",
  "https://hooks.example.com:443/x",
  "https://hooks.example.com:8443/x",
  "https://hooks.example.com:8080/x",
  "https://hooks.example.com:3000/x",
  "https://hooks.example.com:65535/x",
  "https://93.184.216.34/x",
  "https://[2606:4700::1111]/x",
];

Deno.test("ssrf - private addresses in IPv6 spellings and internal ports are refused", () => {
  for (const [url, why] of REFUSED) {
    assert.throws(() => checkTargetUrl(url, false), (e) => {
      assert.ok(e instanceof TargetRefused, url);
      assert.match(e.message, why, url);
      return true;
    }, url);
  }
  for (const url of ACCEPTED) assert.ok(checkTargetUrl(url, false), url);
});

Deno.test("ssrf - WEBHOOK_ALLOW_PRIVATE=1 lifts address and port rules, and every refusal it lifts says so", () => {
  for (const [url] of REFUSED) {
    if (url.includes("%25")) continue; // not a valid URL either way
    assert.ok(checkTargetUrl(url, true), url);
    assert.throws(() => checkTargetUrl(url, false), /WEBHOOK_ALLOW_PRIVATE=1/, url);
  }
  assert.throws(() => checkTargetUrl("ftp://hooks.example.com/x", true), /https/);
  assert.throws(() => checkTargetUrl("https://u:p@hooks.example.com/x", true), /credentials/);
  assert.deepEqual(
    [443, 8080, 8443, 1024, 3000, 22, 80, 1023, 6379, 65536].map(isAllowedPort),
    [true, true, true, true, true, false, false, false, false, false],
  );
});

Deno.test("ssrf - the API refuses such targets with a 400 that names the rule", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps);
    const key = await makeKey(env.deps, ws, { scopes: ["admin"] });
    for (
      const url of ["https://[::127.0.0.1]/x", "https://[::a00:1]/x", "https://h.example.com:6379/"]
    ) {
      const res = await postJson(env, "/api/v1/server/webhooks", { url }, {
        authorization: `Bearer ${key}`,
      });
      const body = await res.json();
      assert.equal(res.status, 400, url);
      assert.equal(body.code, "bad_request");
      assert.match(body.error, /WEBHOOK_ALLOW_PRIVATE=1/, url);
    }
  } finally {
    env.close();
  }
});
