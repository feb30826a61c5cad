/**
 * The signing secret: `SECRET` when set, else generated once and kept in KV so every
 * instance on the same KV agrees.
 * @module
 */
import { keys } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import { randomBase62 } from "./ids.ts";

/** Returns the secret bytes, creating and storing one on first use. */
export async function loadSecret(kv: Deno.Kv, configured: string | undefined): Promise<Uint8Array> {
  if (configured) return new TextEncoder().encode(configured);
  const fresh = randomBase62(48);
  await withKvRetry(() =>
    kv.atomic().check({ key: keys.secret(), versionstamp: null }).set(keys.secret(), fresh).commit()
  );
  const stored = (await withKvRetry(() => kv.get<string>(keys.secret()))).value ?? fresh;
  return new TextEncoder().encode(stored);
}
