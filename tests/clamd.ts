/**
 * A real Debian `clamd` for the virus-scanning tests: a temp directory holding a test-only
 * signature database (the standard EICAR test string as a body signature) and a clamd.conf
 * listening on a free loopback port. freshclam is never run; nothing touches the network.
 * @module
 */
import { freePort, within } from "./processes.ts";

/** The clamd binary Debian's clamav-daemon installs. */
export const CLAMD = "/usr/sbin/clamd";

/** The standard EICAR anti-virus test string (harmless; every scanner flags it). */
export const EICAR = "X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*";

/** A running clamd. */
export interface Clamd {
  /** `tcp://127.0.0.1:<port>`, for `CLAMAV_URL`. */
  url: string;
  /** Stops clamd (SIGTERM) and waits for it; the temp directory is removed. */
  stop: () => Promise<void>;
}

/** Whether clamd is installed; outside CI a missing clamd skips its tests. */
export async function clamdPresent(): Promise<boolean> {
  const there = await Deno.stat(CLAMD).then(() => true, () => false);
  if (!there && Deno.env.get("CI")) {
    throw new Error(`${CLAMD} is missing: CI must install clamav-daemon (.ci/run).`);
  }
  if (!there) console.warn(`SKIPPED: ${CLAMD} not installed (apt-get install clamav-daemon).`);
  return there;
}

/** Starts clamd on a free port with the EICAR-only database; waits until it answers PING. */
export async function startClamd(streamMaxLength = "1M"): Promise<Clamd> {
  const dir = await Deno.makeTempDir({ prefix: "formwell-clamd-" });
  const hex = Array.from(new TextEncoder().encode(EICAR), (b) => b.toString(16).padStart(2, "0"))
    .join("");
  await Deno.writeTextFile(`${dir}/formwell-test.ndb`, `Formwell.Test.EICAR:0:*:${hex}\n`);
  const port = freePort();
  await Deno.writeTextFile(
    `${dir}/clamd.conf`,
    [
      "Foreground yes",
      `TCPSocket ${port}`,
      "TCPAddr 127.0.0.1",
      `DatabaseDirectory ${dir}`,
      `PidFile ${dir}/clamd.pid`,
      `StreamMaxLength ${streamMaxLength}`,
      "",
    ].join("\n"),
  );
  const child = new Deno.Command(CLAMD, {
    args: ["-c", `${dir}/clamd.conf`],
    stdout: "null",
    stderr: "null",
  }).spawn();
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    try {
      child.kill("SIGTERM");
    } catch {
      // already gone
    }
    await child.status;
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  const up = await within(20_000, () => ping(port));
  if (up === null) {
    await stop();
    throw new Error("clamd did not answer PING within 20 s");
  }
  return { url: `tcp://127.0.0.1:${port}`, stop };
}

async function ping(port: number): Promise<boolean> {
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    try {
      await conn.write(new TextEncoder().encode("zPING\0"));
      const buf = new Uint8Array(16);
      const n = await conn.read(buf);
      return n !== null && new TextDecoder().decode(buf.subarray(0, n)).startsWith("PONG");
    } finally {
      conn.close();
    }
  } catch {
    return false;
  }
}
