/**
 * The webhook verification examples of docs/webhooks.md: the doc shows each file verbatim, and
 * each runs as a real process (node, python3, a `go build` binary) that accepts a delivery signed by
 * Formwell's own signer and refuses a tampered body, a wrong secret and an old timestamp.
 */
import assert from "node:assert/strict";
import { signedHeaders } from "@/lib/notify/deliver.ts";
import { newSecret, type Webhook } from "@/lib/notify/webhooks.ts";
import { ROOT } from "@/tests/processes.ts";

const EXAMPLES = [
  { file: "docs/examples/verify-webhook.mjs", fence: "js", cmd: ["node"] },
  { file: "docs/examples/verify_webhook.py", fence: "python", cmd: ["python3"] },
  // Built, then run: `go run` would not pass the test's kill on to the program it starts.
  { file: "docs/examples/verify_webhook.go", fence: "go", cmd: ["go", "build"] },
];

function endpoint(secret: string, previous?: string): Webhook {
  const at = new Date().toISOString();
  return {
    id: "wh_example",
    workspace_id: "ws_example",
    mode: "live",
    format: "standard",
    url: "https://receiver.example/webhooks",
    events: ["submission.created"],
    forms: [],
    enabled: true,
    secret,
    previous_secret: previous
      ? { secret: previous, until: new Date(Date.now() + 3600_000).toISOString() }
      : null,
    failing_since: null,
    disabled_reason: null,
    created_at: at,
    updated_at: at,
  };
}

const BODY = JSON.stringify({
  type: "submission.created",
  timestamp: "2026-11-27T12:00:00.000Z",
  data: {
    form: { public_id: "fAbCdEfGhIjKl", name: "Contact" },
    submission: { id: "sub_01", fields: { name: "Zoë Ångström", message: "Héllo 👋" } },
  },
});

/** Starts an example and waits for its "listening on <port>" line. */
async function startExample(cmd: string[], file: string, secret: string) {
  let [program, args] = [cmd[0], [...cmd.slice(1), file]];
  const dir = cmd[0] === "go" ? await Deno.makeTempDir() : null;
  if (dir) {
    program = `${dir}/verify_webhook`;
    const built = await new Deno.Command("go", { args: ["build", "-o", program, file], cwd: ROOT })
      .output();
    assert.equal(built.code, 0, new TextDecoder().decode(built.stderr));
    args = [];
  }
  const child = new Deno.Command(program, {
    args,
    cwd: ROOT,
    env: { WEBHOOK_SECRET: secret, PORT: "0" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  const deadline = setTimeout(() => child.kill(), 120_000);
  while (!/listening on (\d+)\n/.test(seen)) {
    const { value, done } = await reader.read();
    if (done) {
      clearTimeout(deadline);
      const err = new TextDecoder().decode((await child.output().catch(() => null))?.stderr);
      throw new Error(`${file} ended before listening: ${seen} ${err}`);
    }
    seen += value;
  }
  clearTimeout(deadline);
  const port = Number(seen.match(/listening on (\d+)/)![1]);
  const lines: string[] = [];
  const drain = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      lines.push(value);
    }
  })();
  return {
    port,
    output: () => lines.join(""),
    async stop() {
      child.kill();
      await drain;
      await child.stderr.cancel();
      await child.status;
      if (dir) await Deno.remove(dir, { recursive: true });
    },
  };
}

async function post(port: number, headers: Record<string, string>, body: string) {
  const res = await fetch(`http://127.0.0.1:${port}/webhooks`, { method: "POST", headers, body });
  await res.body?.cancel();
  return res.status;
}

Deno.test("docs/webhooks.md shows each verification example verbatim", async () => {
  const doc = await Deno.readTextFile(`${ROOT}docs/webhooks.md`);
  for (const ex of EXAMPLES) {
    const source = await Deno.readTextFile(`${ROOT}${ex.file}`);
    assert.ok(
      doc.includes("```" + ex.fence + "\n" + source + "```\n"),
      `${ex.file} is not in the doc`,
    );
  }
});

for (const ex of EXAMPLES) {
  Deno.test(`${ex.file} accepts Formwell's signature and refuses forgeries`, async () => {
    const secret = newSecret();
    const server = await startExample(ex.cmd, ex.file, secret);
    try {
      const now = Date.now();
      const good = signedHeaders(endpoint(secret), "msg_good", BODY, now);
      assert.equal(await post(server.port, good, BODY), 204, "valid signature");

      const tampered = BODY.replace("Zoë", "Zoe");
      assert.equal(await post(server.port, good, tampered), 400, "tampered body");

      const forged = signedHeaders(endpoint(newSecret()), "msg_forged", BODY, now);
      assert.equal(await post(server.port, forged, BODY), 400, "wrong secret");

      const old = signedHeaders(endpoint(secret), "msg_old", BODY, now - 10 * 60_000);
      assert.equal(await post(server.port, old, BODY), 400, "old timestamp");

      const otherId = { ...good, "webhook-id": "msg_other" };
      assert.equal(await post(server.port, otherId, BODY), 400, "signature of another id");

      // After a rotation both secrets sign; a receiver still holding the old one accepts.
      const rotated = signedHeaders(endpoint(newSecret(), secret), "msg_rotated", BODY, now);
      assert.equal(rotated["webhook-signature"].split(" ").length, 2);
      assert.equal(await post(server.port, rotated, BODY), 204, "previous secret after rotation");

      assert.match(server.output(), /received submission\.created msg_good/);
    } finally {
      await server.stop();
    }
  });
}
