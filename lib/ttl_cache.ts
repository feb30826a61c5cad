/**
 * A small in-process cache whose entries expire after a fixed time, bounded in size.
 * Used only where staleness is allowed and bounded (API keys: SPEC allows other instances
 * up to ~30 s to see a revocation); nothing's correctness rests on a hit.
 * @module
 */

/** Entries live `ttlMs`; past `maxEntries` the oldest is dropped. */
export class TtlCache<V> {
  #entries = new Map<string, { value: V; expires: number }>();

  constructor(
    readonly ttlMs: number,
    readonly maxEntries: number,
    readonly now: () => number = Date.now,
  ) {}

  /** The live value under `key`, or undefined. */
  get(key: string): V | undefined {
    const e = this.#entries.get(key);
    if (!e) return undefined;
    if (e.expires <= this.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  /** Stores `value` under `key` for `ttlMs`. */
  set(key: string, value: V): void {
    this.#entries.delete(key);
    if (this.#entries.size >= this.maxEntries) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
    this.#entries.set(key, { value, expires: this.now() + this.ttlMs });
  }

  /** Forgets `key`. */
  delete(key: string): void {
    this.#entries.delete(key);
  }
}
