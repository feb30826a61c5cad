/**
 * Backup under load with real processes: a server (main.ts) acknowledges a loop of
 * submissions while a CLI process backs its KV file up; the backup restored by another CLI
 * process into an empty KV holds every submission acknowledged before the backup started
 * (id, number, status), the API key still authenticates against it, and the stored file
 * has equal bytes. A `kill -9` of a backup leaves nothing under the final name.
 */
import assert from "node:assert/strict";
import { readSubmission } from "@/lib/submissions/records.ts";
import { fileKey } from "@/lib/uploads/grants.ts";
import { testEnv } from "@/tests/helpers.ts";
import { populate } from "@/tests/ops_fixtures.ts";
import { DENO, ROOT, runCliProcess, startServer, within } from "@/tests/processes.ts";

const SECRET = "backup-process-secret-backup-process-0000";

function envFor(dir: string, name: string): Record<string, string> {
  return {
    KV_PATH: `${dir}/${name}.kv`,
    LOCAL_STORAGE_DIR: `${dir}/${name}-files`,
    SECRET,
    FORMWELL_SEED: "0",
    FORMWELL_ENV: "test",
    RATE_LIMITS: JSON.stringify({ submit: 1_000_000, workspace: 1_000_000 }),
  };
}

type Ack = { id: string; number: number; at: number };

Deno.test("ops backup - a CLI backup under load restores every acknowledged submission", async () => {
  const dir = await Deno.makeTempDir({ prefix: "formwell-backup-mp-" });
  const source = envFor(dir, "source");
  const setup = await testEnv(source);
  const p = await populate(setup);
  setup.close();

  const server = await startServer(source);
  const acked: Ack[] = [];
  let running = true;
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const res = await fetch(`${server.url}/api/v1/submit/p/${p.form.id}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ data: { name: `Person ${i}` } }),
      });
      const body = await res.json();
      assert.equal(res.status, 201, JSON.stringify(body));
      acked.push({ id: body.submission_id, number: body.submission_number, at: performance.now() });
    }
  })();
  const out = `${dir}/backup.tar`;
  let before: Ack[];
  let started: number;
  let ended: number;
  try {
    assert.notEqual(await within(20_000, () => Promise.resolve(acked.length >= 20)), null);
    before = acked.slice();
    started = performance.now();
    const backup = await runCliProcess(source, "backup", "--out", out);
    ended = performance.now();
    assert.equal(backup.code, 0, backup.stderr);
    assert.equal(JSON.parse(backup.stdout).backup.path, out);
  } finally {
    running = false;
    await loop;
    await server.stop();
  }
  const during = acked.filter((a) => a.at > started && a.at < ended).length;
  assert.ok(during > 0, "submissions were acknowledged while the backup ran");

  const target = envFor(dir, "target");
  const restore = await runCliProcess(target, "restore", "--in", out);
  assert.equal(restore.code, 0, restore.stderr);
  const restored = JSON.parse(restore.stdout).restored;
  assert.equal(restored.files, 1);

  const sourceKv = await Deno.openKv(source.KV_PATH);
  const restoredServer = await startServer(target);
  try {
    const first = p.ids.map((id, i) => ({ id, number: i + 1, at: 0 }));
    for (const a of [...first, ...before]) {
      const res = await fetch(
        `${restoredServer.url}/api/v1/server/forms/${p.form.id}/submissions/${a.id}`,
        { headers: { authorization: `Bearer ${p.apiKey}` } },
      );
      const text = await res.text();
      assert.equal(res.status, 200, `${a.id}: ${text}`);
      const sub = JSON.parse(text).submission;
      assert.equal(sub.id, a.id);
      assert.equal(sub.submission_number, a.number);
      const original = await readSubmission(sourceKv, p.form.id, a.id);
      assert.equal(sub.status, original!.status);
    }
  } finally {
    sourceKv.close();
    await restoredServer.stop();
  }
  const bytes = await Deno.readFile(`${target.LOCAL_STORAGE_DIR}/${fileKey(p.withFile.path)}`);
  assert.deepEqual(bytes, p.withFile.bytes);

  // The refusal: the target KV is not empty any more.
  const again = await runCliProcess(target, "restore", "--in", out);
  assert.equal(again.code, 1);
  assert.match(JSON.parse(again.stderr).error, /not empty/);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("ops backup - kill -9 during a backup leaves no file under the final name", async () => {
  const dir = await Deno.makeTempDir({ prefix: "formwell-backup-kill-" });
  const env = envFor(dir, "source");
  const setup = await testEnv(env);
  await populate(setup);
  setup.close();
  // Enough stored bytes that the backup is still writing when it is killed.
  const many = `${env.LOCAL_STORAGE_DIR}/files/frm_bulk`;
  await Deno.mkdir(many, { recursive: true });
  const chunk = new Uint8Array(4 * 1024 * 1024).fill(7);
  for (let i = 0; i < 50; i++) await Deno.writeFile(`${many}/f${i}`, chunk);

  const out = `${dir}/backup.tar`;
  const child = new Deno.Command(DENO, {
    args: ["run", "-A", "cli.ts", "backup", "--out", out],
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    stdout: "null",
    stderr: "null",
  }).spawn();
  const partial = async () => {
    for await (const e of Deno.readDir(dir)) {
      if (e.name.startsWith(".backup.tar.partial-")) return e.name;
    }
    return null;
  };
  let seen: string | null = null;
  const deadline = Date.now() + 30_000;
  while (!seen && Date.now() < deadline) {
    seen = await partial();
    if (!seen) await new Promise((r) => setTimeout(r, 5));
  }
  assert.ok(seen, "the backup began writing its temporary file");
  // Wait until it holds some bytes: the backup is mid-way.
  while (Date.now() < deadline && (await Deno.stat(`${dir}/${seen}`)).size < 1024 * 1024) {
    await new Promise((r) => setTimeout(r, 2));
  }
  child.kill("SIGKILL");
  const status = await child.status;
  assert.equal(status.signal, "SIGKILL", "killed before it finished");
  await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
  await Deno.remove(dir, { recursive: true });
});
