/**
 * Picks the storage driver the configuration names (`STORAGE=local|s3`).
 * @module
 */
import type { Config } from "@/lib/config.ts";
import { LocalStorage } from "./local.ts";
import { S3Storage } from "./s3.ts";
import type { Storage } from "./storage.ts";

export type { Storage } from "./storage.ts";
export { LocalStorage } from "./local.ts";
export { S3Storage } from "./s3.ts";

/** Builds the configured driver; `secret` signs the local driver's tokens. */
export function createStorage(
  config: Pick<Config, "storage" | "localStorageDir" | "publicBaseUrl" | "s3">,
  secret: Uint8Array,
  now: () => number = Date.now,
): Storage {
  return config.storage === "s3"
    ? new S3Storage(config.s3, now)
    : new LocalStorage(config.localStorageDir, config.publicBaseUrl, secret, now);
}
