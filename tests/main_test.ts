import assert from "node:assert/strict";
import { DENO, freePort, ROOT } from "./processes.ts";

const MAIN = `${ROOT}main.ts`;

/** Reads the child's stdout until `done` says the text so far is enough (bounded by `limit` chunks). */
async function readUntil(
  stream: ReadableStream<Uint8Array>,
  done: (text: string) => boolean,
): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (let i = 0; i < 1000 && !done(text); i++) {
    const { value, done: end } = await reader.read();
    if (end) break;
    text += decoder.decode(value, { stream: true });
  }
  reader.releaseLock();
  return text;
}

/** Starts main.ts on a KV in `dir` and returns its banner (stdout up to "listening on"). */
async function startAndReadBanner(dir: string, port: number, env: Record<string, string> = {}) {
  const child = new Deno.Command(DENO, {
    args: ["run", "-A", MAIN],
    env: {
      KV_PATH: `${dir}/kv.sqlite`,
      PORT: String(port),
      LOCAL_STORAGE_DIR: `${dir}/files`,
      NO_COLOR: "1",
      ...env,
    },
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const banner = await readUntil(child.stdout, (t) => /listening on .*\n/.test(t));
  const stop = async () => {
    child.kill("SIGKILL");
    await child.status;
    await child.stdout.cancel().catch(() => {});
  };
  return { banner, stop };
}

Deno.test("main - first start seeds a demo and the printed curl line submits", async () => {
  const dir = await Deno.makeTempDir();
  const port = freePort();
  const first = await startAndReadBanner(dir, port);
  try {
    assert.match(first.banner, /Admin: .*email admin@formwell\.local, password [0-9A-Za-z]{16}/);
    const curl = first.banner.split("\n").find((l) => l.trim().startsWith("curl "))!.trim();
    assert.ok(curl.includes(`http://localhost:${port}/api/v1/submit/p/`));
    const res = await new Deno.Command("bash", { args: ["-c", curl], stdout: "piped" }).output();
    const body = JSON.parse(new TextDecoder().decode(res.stdout));
    assert.equal(body.success, true);
    assert.equal(body.submission_number, 1);
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    assert.deepEqual(await health.json(), { ok: true });
  } finally {
    await first.stop();
  }
  // A second start on the same database does not seed again.
  const again = await startAndReadBanner(dir, freePort());
  await again.stop();
  assert.match(again.banner, /listening on/);
  assert.ok(!again.banner.includes("created a demo"), again.banner);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("main - an invalid configuration stops the start with every problem listed", async () => {
  const out = await new Deno.Command(DENO, {
    args: ["run", "-A", MAIN],
    env: { PORT: "nope", STORAGE: "ftp", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 1);
  const err = new TextDecoder().decode(out.stderr);
  assert.match(err, /PORT/);
  assert.match(err, /STORAGE/);
});

/** The port a start line names (`listening on http://<host>:<port>`). */
function listenedPort(banner: string, host: string): number {
  const m = new RegExp(`listening on http://${host.replace(/[.[\]]/g, "\\$&")}:(\\d+) `)
    .exec(banner);
  assert.ok(m, banner);
  return Number(m[1]);
}

/** This machine's first non-loopback IPv4 address, if it has one. */
function outsideAddress(): string | null {
  return Deno.networkInterfaces().find((i) => i.family === "IPv4" && !i.address.startsWith("127."))
    ?.address ?? null;
}

/** Whether a TCP connection to `hostname:port` is accepted. */
async function accepts(hostname: string, port: number): Promise<boolean> {
  try {
    (await Deno.connect({ hostname, port })).close();
    return true;
  } catch {
    return false;
  }
}

Deno.test("main - listens on 127.0.0.1 outside production, every interface in it", async (t) => {
  const dir = await Deno.makeTempDir();
  const outside = outsideAddress();
  try {
    await t.step("development: loopback only, and the start line says so", async () => {
      const dev = await startAndReadBanner(dir, 0, { FORMWELL_SEED: "0" });
      try {
        const port = listenedPort(dev.banner, "127.0.0.1");
        assert.match(dev.banner, /\(development\)/);
        assert.ok(port > 0);
        const health = await fetch(`http://127.0.0.1:${port}/healthz`);
        assert.deepEqual(await health.json(), { ok: true });
        if (outside) assert.equal(await accepts(outside, port), false, `reachable on ${outside}`);
      } finally {
        await dev.stop();
      }
    });

    await t.step("production: 0.0.0.0, named as every interface", async () => {
      const prod = await startAndReadBanner(dir, 0, { FORMWELL_ENV: "production" });
      try {
        const port = listenedPort(prod.banner, "0.0.0.0");
        assert.match(prod.banner, /\(production, every interface\)/);
        assert.ok(await accepts("127.0.0.1", port));
        if (outside) assert.ok(await accepts(outside, port), `not reachable on ${outside}`);
      } finally {
        await prod.stop();
      }
    });

    await t.step("HOST chooses the address, IPv6 in brackets", async () => {
      const v6 = await startAndReadBanner(dir, 0, { FORMWELL_SEED: "0", HOST: "::1" });
      try {
        const port = listenedPort(v6.banner, "[::1]");
        assert.ok(await accepts("::1", port));
        assert.equal(await accepts("127.0.0.1", port), false);
      } finally {
        await v6.stop();
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
