/**
 * What a submission keeps of its sender: the IP address in full, truncated (IPv4 /24,
 * IPv6 /48) or not at all, and the user agent or not, per the form's policy. Scoring and
 * rate limiting run on the request's values before this applies; only the record obeys it.
 * @module
 */
import { hmacSha256Hex } from "@/lib/hmac.ts";
import ipaddr from "ipaddr.js";
import type { Form, StoreIpPolicy, SubmissionSignals } from "@/lib/schemas.ts";

/** A form's privacy settings with their defaults filled in. */
export function privacyOf(form: Pick<Form, "retention_days" | "store_ip" | "store_user_agent">): {
  retention_days: number | null;
  store_ip: StoreIpPolicy;
  store_user_agent: boolean;
} {
  return {
    retention_days: form.retention_days ?? null,
    store_ip: form.store_ip ?? "truncated",
    store_user_agent: form.store_user_agent ?? true,
  };
}

/** Four decimal octets without leading zeros (ipaddr reads those as octal). */
const PLAIN_IPV4 = /^(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})$/;

/**
 * The IP address to store under `policy`: as is, its network (IPv4 /24 or IPv6 /48, the
 * host part zeroed; an IPv4-mapped IPv6 address counts as IPv4), or nothing. An address
 * that does not parse is not stored unless the policy is "full".
 */
export function storedIp(policy: StoreIpPolicy, ip: string | undefined): string | undefined {
  if (!ip || policy === "none") return undefined;
  if (policy === "full") return ip;
  // The common case, a plain dotted-decimal IPv4 address, without building ipaddr's objects.
  const v4 = PLAIN_IPV4.exec(ip);
  if (v4 && v4.slice(1).every((o) => Number(o) <= 255)) return `${v4[1]}.${v4[2]}.${v4[3]}.0`;
  if (!ipaddr.isValid(ip)) return undefined;
  let addr = ipaddr.parse(ip);
  if (addr.kind() === "ipv6" && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  }
  if (addr.kind() === "ipv4") {
    const o = (addr as ipaddr.IPv4).octets;
    return `${o[0]}.${o[1]}.${o[2]}.0`;
  }
  const p = (addr as ipaddr.IPv6).parts;
  return new ipaddr.IPv6([p[0], p[1], p[2], 0, 0, 0, 0, 0]).toString();
}

/** The signals a submission record keeps: the request's, with IP and user agent per the form. */
export function storedSignals(form: Form, signals: SubmissionSignals): SubmissionSignals {
  const policy = privacyOf(form);
  const out: SubmissionSignals = { ...signals, ip: storedIp(policy.store_ip, signals.ip) };
  if (out.ip === undefined) delete out.ip;
  if (!policy.store_user_agent) delete out.user_agent;
  return out;
}

/**
 * The sender identity kept in a scoring mark (stored in the number index): a keyed digest
 * of the rate-limit identity, so bursts still match while no address is stored there.
 */
export function privateWho(secret: Uint8Array, who: string): string {
  if (!who) return "";
  return hmacSha256Hex(secret, `who:${who}`).slice(0, 24);
}
