/**
 * Webhook targets and the address rules: a target must be `https`, on port 443, 8080, 8443
 * or an unprivileged port that no well-known internal service uses
 * ({@linkcode isAllowedPort}), and every address its host resolves to must be public
 * unicast (no loopback, private, link-local, CGNAT, multicast, unspecified, reserved,
 * IPv4-compatible, NAT64/6to4/Teredo or cloud metadata), unless `WEBHOOK_ALLOW_PRIVATE=1`.
 * The caller connects to an address returned here, so the address checked is the address
 * used. See docs/decisions/webhook-ports.md.
 * @module
 */
import ipaddr from "ipaddr.js";

/** Cloud metadata addresses, refused even where their range would not be. */
const METADATA = new Set(["169.254.169.254", "fd00:ec2::254", "100.100.100.200"]);

/** What `WEBHOOK_ALLOW_PRIVATE=1` lifts, said in every refusal it would lift. */
const ALLOW_PRIVATE_HINT = " (WEBHOOK_ALLOW_PRIVATE=1 on the server allows it, for intranets)";

/**
 * Ports at or above 1024 of services that listen on internal networks and may take part
 * of an HTTP request as their own protocol's commands (databases, caches, queues, cluster
 * and container APIs).
 */
const INTERNAL_PORTS = new Set([
  1433, // SQL Server
  1521, // Oracle
  2049, // NFS
  2375, // Docker API
  2376, // Docker API (TLS)
  2379, // etcd
  2380, // etcd peers
  3306, // MySQL
  3389, // RDP
  4369, // Erlang port mapper
  5432, // PostgreSQL
  5601, // Kibana
  5672, // AMQP
  5984, // CouchDB
  6379, // Redis
  6443, // Kubernetes API
  8086, // InfluxDB
  8500, // Consul
  9000, // PHP-FPM, MinIO
  9042, // Cassandra
  9092, // Kafka
  9200, // Elasticsearch
  9300, // Elasticsearch transport
  10250, // kubelet
  11211, // memcached
  15672, // RabbitMQ management
  27017, // MongoDB
]);

/** Thrown when a target breaks the rules; the message says which. */
export class TargetRefused extends Error {}

/** Whether a webhook may connect to `port` with private targets forbidden. */
export function isAllowedPort(port: number): boolean {
  if (port === 443 || port === 8080 || port === 8443) return true;
  return port >= 1024 && port <= 65535 && !INTERNAL_PORTS.has(port);
}

/** Whether an address may be connected to with private targets forbidden. */
export function isPublicAddress(addr: string): boolean {
  if (!ipaddr.isValid(addr)) return false;
  // IPv4-compatible IPv6 (::a.b.c.d, deprecated): a stack may reach the embedded IPv4.
  if (ipaddr.IPv6.isValid(addr) && ipaddr.IPv6.parse(addr).parts.slice(0, 6).every((p) => !p)) {
    return false;
  }
  const ip = ipaddr.process(addr);
  if (METADATA.has(ip.toNormalizedString()) || METADATA.has(ip.toString())) return false;
  return ip.range() === "unicast";
}

/** Checks a URL's form (scheme, no credentials, port, literal address); returns it parsed. */
export function checkTargetUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefused("url must be an absolute URL");
  }
  const okScheme = url.protocol === "https:" || (allowPrivate && url.protocol === "http:");
  if (!okScheme) {
    const hint = url.protocol === "http:" ? ALLOW_PRIVATE_HINT : "";
    throw new TargetRefused(`url must use https${hint}`);
  }
  if (url.username || url.password) throw new TargetRefused("url must not carry credentials");
  const port = url.port ? Number(url.port) : 443;
  if (!allowPrivate && !isAllowedPort(port)) {
    throw new TargetRefused(
      `url must not use port ${port}: use 443, 8080, 8443 or a port from 1024 up that is not ` +
        `a well-known internal service's${ALLOW_PRIVATE_HINT}`,
    );
  }
  const host = bareHost(url);
  if (!allowPrivate && ipaddr.isValid(host) && !isPublicAddress(host)) {
    throw new TargetRefused(`url must point to a public address${ALLOW_PRIVATE_HINT}`);
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
 * `signal` ends the lookup.
 */
export async function resolveTarget(
  url: URL,
  allowPrivate: boolean,
  signal?: AbortSignal,
): Promise<string[]> {
  const host = bareHost(url);
  let addrs: string[];
  if (ipaddr.isValid(host)) addrs = [host];
  else if (allowPrivate && host === "localhost") addrs = ["127.0.0.1"];
  else {
    const [a, aaaa] = await Promise.all([
      Deno.resolveDns(host, "A", { signal }).catch(() => [] as string[]),
      Deno.resolveDns(host, "AAAA", { signal }).catch(() => [] as string[]),
    ]);
    addrs = [...a, ...aaaa];
  }
  signal?.throwIfAborted();
  if (addrs.length === 0) throw new TargetRefused(`cannot resolve ${host}`);
  if (!allowPrivate) {
    const bad = addrs.find((a) => !isPublicAddress(a));
    if (bad) {
      throw new TargetRefused(`${host} resolves to a non-public address${ALLOW_PRIVATE_HINT}`);
    }
  }
  return addrs;
}
