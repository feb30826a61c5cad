/**
 * Webhook targets and the address rules: a target must be `https` and every address its
 * host resolves to must be public unicast (no loopback, private, link-local, CGNAT,
 * multicast, unspecified, reserved, NAT64/6to4/Teredo or cloud metadata), unless
 * `WEBHOOK_ALLOW_PRIVATE=1`. The caller connects to an address returned here, so the
 * address checked is the address used.
 * @module
 */
import ipaddr from "ipaddr.js";

/** Cloud metadata addresses, refused even where their range would not be. */
const METADATA = new Set(["169.254.169.254", "fd00:ec2::254", "100.100.100.200"]);

/** Thrown when a target breaks the rules; the message says which. */
export class TargetRefused extends Error {}

/** Whether an address may be connected to with private targets forbidden. */
export function isPublicAddress(addr: string): boolean {
  if (!ipaddr.isValid(addr)) return false;
  const ip = ipaddr.process(addr);
  if (METADATA.has(ip.toNormalizedString()) || METADATA.has(ip.toString())) return false;
  return ip.range() === "unicast";
}

/** Checks a URL's form (scheme, no credentials); returns it parsed. */
export function checkTargetUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefused("url must be an absolute URL");
  }
  const okScheme = url.protocol === "https:" || (allowPrivate && url.protocol === "http:");
  if (!okScheme) throw new TargetRefused("url must use https");
  if (url.username || url.password) throw new TargetRefused("url must not carry credentials");
  const host = bareHost(url);
  if (!allowPrivate && ipaddr.isValid(host) && !isPublicAddress(host)) {
    throw new TargetRefused("url must point to a public address");
  }
  return url;
}

/** The URL's host without IPv6 brackets. */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "");
}

/**
 * The addresses to connect to for `url`: an IP literal as is, else its A and AAAA
 * records. Every address must pass the rules (one bad record refuses the target).
 */
export async function resolveTarget(url: URL, allowPrivate: boolean): Promise<string[]> {
  const host = bareHost(url);
  let addrs: string[];
  if (ipaddr.isValid(host)) addrs = [host];
  else if (allowPrivate && host === "localhost") addrs = ["127.0.0.1"];
  else {
    const [a, aaaa] = await Promise.all([
      Deno.resolveDns(host, "A").catch(() => [] as string[]),
      Deno.resolveDns(host, "AAAA").catch(() => [] as string[]),
    ]);
    addrs = [...a, ...aaaa];
  }
  if (addrs.length === 0) throw new TargetRefused(`cannot resolve ${host}`);
  if (!allowPrivate) {
    const bad = addrs.find((a) => !isPublicAddress(a));
    if (bad) throw new TargetRefused(`${host} resolves to a non-public address`);
  }
  return addrs;
}
