/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * Where the outbox keeps jobs in a browser: IndexedDB (which holds the files' Blobs too),
 * else localStorage (JSON: a job's files are kept only once uploaded, as references; one
 * with bytes still to upload stays in the open page's memory), else memory.
 * @module
 */
import type { Job } from "./submit.ts";

/** The outbox's storage. */
export interface OutboxStore {
  put(job: Job): Promise<void>;
  remove(id: string): Promise<void>;
  list(): Promise<Job[]>;
}

/** Jobs in this page's memory only (servers, tests, and the last resort). */
export function memoryStore(): OutboxStore {
  const jobs = new Map<string, Job>();
  return {
    put: (job) => Promise.resolve(void jobs.set(job.id, job)),
    remove: (id) => Promise.resolve(void jobs.delete(id)),
    list: () => Promise.resolve([...jobs.values()]),
  };
}

/** Jobs in IndexedDB (database `formwell`, store `outbox`), Blobs included. */
export function indexedDbStore(name = "formwell"): OutboxStore {
  let db: Promise<IDBDatabase> | undefined;
  const open = () =>
    db ??= new Promise((resolve, reject) => {
      const req = indexedDB.open(name, 1);
      req.onupgradeneeded = () => req.result.createObjectStore("outbox", { keyPath: "id" });
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
  const run = async <T>(
    write: boolean,
    op: (s: IDBObjectStore) => IDBRequest<T>,
  ): Promise<T> => {
    const t = (await open()).transaction(
      "outbox",
      write ? "readwrite" : "readonly",
      // A kept submission must survive the browser's crash, not only the tab's close.
      { durability: write ? "strict" : "default" },
    );
    const req = op(t.objectStore("outbox"));
    return new Promise((resolve, reject) => {
      t.oncomplete = () => resolve(req.result);
      t.onerror = t.onabort = () => reject(t.error);
    });
  };
  return {
    put: (job) => run(true, (s) => s.put(job)).then(() => {}),
    remove: (id) => run(true, (s) => s.delete(id)).then(() => {}),
    list: () => run(false, (s) => s.getAll() as IDBRequest<Job[]>),
  };
}

const PREFIX = "formwell.outbox.";

/** Jobs as JSON in localStorage; a job with bytes still to upload is kept in memory. */
export function localStorageStore(): OutboxStore {
  const memory = memoryStore();
  return {
    put(job) {
      if (Object.keys(job.files).some((f) => !job.refs[f])) {
        return memory.put(job);
      }
      localStorage.setItem(
        PREFIX + job.id,
        JSON.stringify({ ...job, files: {} }),
      );
      return Promise.resolve();
    },
    async remove(id) {
      localStorage.removeItem(PREFIX + id);
      await memory.remove(id);
    },
    async list() {
      const jobs = await memory.list();
      for (let i = 0; i < localStorage.length; i++) {
        const key = localStorage.key(i)!;
        if (key.startsWith(PREFIX)) {
          jobs.push(JSON.parse(localStorage.getItem(key)!));
        }
      }
      return jobs;
    },
  };
}

/** The first store that works here: IndexedDB, else localStorage, else memory. */
export function browserStore(): OutboxStore {
  const chain = [
    typeof indexedDB === "object" ? indexedDbStore : null,
    typeof localStorage === "object" ? localStorageStore : null,
    memoryStore,
  ].filter(Boolean).map((make) => make!());
  // A store that fails once (private modes, quota, blocked storage) is dropped for the next.
  const use = async <T>(op: (s: OutboxStore) => Promise<T>): Promise<T> => {
    for (;;) {
      try {
        return await op(chain[0]);
      } catch (err) {
        if (chain.length === 1) throw err;
        chain.shift();
      }
    }
  };
  return {
    put: (job) => use((s) => s.put(job)),
    remove: (id) => use((s) => s.remove(id)),
    list: () => use((s) => s.list()),
  };
}
