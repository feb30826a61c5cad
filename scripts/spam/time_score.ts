/**
 * `deno run -A scripts/spam/time_score.ts`: times scoring a 4 KB message (tokenize and
 * score, through `scoreText`) with the committed model. The message is made of the
 * short-message test set's texts, repeated to 4,096 characters (no corpus needed).
 * Prints the best and median of 7 rounds of 2,000 calls, in CPU time and in wall time.
 * @module
 */
import process from "node:process";
import { loadModel } from "@/lib/spam/load.ts";
import { scoreText } from "@/lib/spam/model.ts";

const set = JSON.parse(
  await Deno.readTextFile(new URL("../../tests/lib/spam/short_messages.json", import.meta.url)),
) as { spam: Array<{ message: string }>; ham: Array<{ message: string }> };
let text = "";
for (let i = 0; text.length < 4096; i++) {
  const all = [...set.spam, ...set.ham];
  text += all[i % all.length].message + "\n";
}
text = text.slice(0, 4096);
const model = await loadModel();
const fn = () => scoreText(model, { subject: "Hello", text });
for (let i = 0; i < 500; i++) fn();
const rounds: number[] = [];
const cpu: number[] = [];
for (let r = 0; r < 7; r++) {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  for (let i = 0; i < 2_000; i++) fn();
  const c = process.cpuUsage(c0);
  rounds.push((performance.now() - t0) * 1000 / 2_000);
  cpu.push((c.user + c.system) / 2_000);
}
rounds.sort((a, b) => a - b);
cpu.sort((a, b) => a - b);
// CPU time is what one call costs the process; wall time also counts waiting for a core on
// a shared host.
console.log(
  `4 KB message: ${cpu[0].toFixed(1)} µs CPU best, ${cpu[3].toFixed(1)} µs CPU median; ` +
    `wall ${rounds[0].toFixed(1)} µs best, ${rounds[3].toFixed(1)} µs median ` +
    `(7 rounds of 2,000; ${model.f.size} tokens, max ${model.params.maxTokens} combined)`,
);
