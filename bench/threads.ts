/**
 * CPU time of a process by thread, from /proc (Linux): where a server's time goes. Under
 * `deno run` (the bench and the ceiling; `deno test` runs tests on another thread) Deno
 * runs all JavaScript and the HTTP server on the main thread, Deno KV's SQLite work on
 * one worker thread (`sw-0`), and V8's garbage collection and compilation helpers on
 * `V8 DefaultWorker` threads.
 * @module
 */

/** CPU microseconds by thread group. */
export interface ThreadCpu {
  /** The main thread: JavaScript, the HTTP server, KV calls' conversions. */
  main: number;
  /** Deno KV's SQLite worker. */
  kv: number;
  /** V8's helper threads (concurrent GC, compilation). */
  v8: number;
  other: number;
}

/** /proc's utime and stime unit (USER_HZ, 100 on Linux). */
const MICROS_PER_TICK = 10_000;

/** A process's CPU time so far per live thread (by thread id), or null without /proc. */
export function threadCpu(
  pid: number,
): Map<number, { group: keyof ThreadCpu; micros: number }> | null {
  const threads = new Map<number, { group: keyof ThreadCpu; micros: number }>();
  try {
    for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
      const tid = Number(task.name);
      const dir = `/proc/${pid}/task/${task.name}`;
      const comm = Deno.readTextFileSync(`${dir}/comm`).trim();
      const stat = Deno.readTextFileSync(`${dir}/stat`);
      // Fields after the parenthesised name start at field 3 (state); utime and stime are
      // fields 14 and 15.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const micros = (Number(fields[11]) + Number(fields[12])) * MICROS_PER_TICK;
      threads.set(tid, { group: groupOf(tid === pid, comm), micros });
    }
  } catch {
    return null;
  }
  return threads;
}

function groupOf(isMain: boolean, comm: string): keyof ThreadCpu {
  if (isMain) return "main";
  if (/^sw-\d+$/.test(comm)) return "kv";
  if (comm.startsWith("V8 ")) return "v8";
  return "other";
}

/** The machine's CPU time in ticks, all cores: the total and what the hypervisor stole. */
export interface HostTicks {
  total: number;
  steal: number;
}

/**
 * Parses /proc/stat's first line (`cpu user nice system idle iowait irq softirq steal ...`):
 * steal is time this virtual machine was ready to run but the host ran someone else.
 */
export function parseCpuLine(line: string): HostTicks | null {
  const m = /^cpu\s+(.*)$/m.exec(line);
  if (!m) return null;
  const f = m[1].trim().split(/\s+/).map(Number);
  if (f.length < 8 || f.some((n) => !Number.isFinite(n))) return null;
  // guest time is already counted in user time, so only the first eight fields add up.
  return { total: f.slice(0, 8).reduce((a, b) => a + b, 0), steal: f[7] };
}

function hostTicks(): HostTicks | null {
  try {
    return parseCpuLine(Deno.readTextFileSync("/proc/stat"));
  } catch {
    return null;
  }
}

/**
 * Adds up CPU time over several runs: `start` before each, `stop` after it. Counted per
 * thread, so a thread that started meanwhile counts from zero; one that ended meanwhile
 * (its time no longer readable) counts nothing. The host's stolen time over the same runs
 * is kept too: a busy host shows there rather than as a slower server.
 */
export class CpuMeter {
  #total: ThreadCpu = { main: 0, kv: 0, v8: 0, other: 0 };
  #at: ReturnType<typeof threadCpu> = null;
  #ok = true;
  #host = { total: 0, steal: 0 };
  #hostAt: HostTicks | null = null;

  constructor(readonly pid: number) {}

  start(): void {
    this.#at = threadCpu(this.pid);
    this.#hostAt = hostTicks();
  }

  stop(): void {
    const host = hostTicks();
    if (host && this.#hostAt) {
      this.#host.total += host.total - this.#hostAt.total;
      this.#host.steal += host.steal - this.#hostAt.steal;
    }
    const now = threadCpu(this.pid);
    if (!now || !this.#at) {
      this.#ok = false;
      return;
    }
    for (const [tid, { group, micros }] of now) {
      this.#total[group] += micros - (this.#at.get(tid)?.micros ?? 0);
    }
  }

  /** The share of the machine's CPU time the host stole during the runs, if readable. */
  stealShare(): number | undefined {
    return this.#host.total > 0 ? this.#host.steal / this.#host.total : undefined;
  }

  /** The measured time per request, or undefined when it could not be read. */
  perRequest(requests: number): ThreadCpu | undefined {
    if (!this.#ok || requests <= 0) return undefined;
    const t = this.#total;
    const per = (n: number) => n / requests;
    return { main: per(t.main), kv: per(t.kv), v8: per(t.v8), other: per(t.other) };
  }
}
