/**
 * The virus-scan step of upload verification: with `CLAMAV_URL` set, every byte of an
 * uploaded object is streamed to clamd before the upload may be verified.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import type { Inspection } from "./checks.ts";
import { ScannerUnavailableError, scanStream } from "./clamav.ts";
import { logger } from "@/lib/observe/log.ts";

/**
 * Scans the object `key` (version `etag`): null when clean or scanning is off, a refusal
 * when clamd found a signature or the file passes its StreamMaxLength; throws the 503
 * `scanner_unavailable` when clamd cannot be reached or fails otherwise.
 */
export async function scanUpload(
  deps: Deps,
  key: string,
  etag?: string,
): Promise<Inspection | null> {
  const url = deps.config.clamavUrl;
  if (!url) return null;
  let result;
  try {
    result = await scanStream(url, await deps.storage.readStream(key, etag));
  } catch (err) {
    if (!(err instanceof ScannerUnavailableError)) throw err;
    logger.error("virus scan failed", { err: err.message });
    throw errors.scannerUnavailable();
  }
  if (result.clean) return null;
  if ("signature" in result) {
    return {
      ok: false,
      infected: true,
      reason: `The file contains malware (${result.signature}) and was removed.`,
    };
  }
  // Longer than clamd's StreamMaxLength: never scannable, so never known to be clean.
  if (/size limit/i.test(result.error)) {
    return { ok: false, reason: "The file is larger than the virus scanner accepts." };
  }
  // Any other clamd error may pass (a timeout, memory): the client may retry.
  logger.error("virus scan error", { err: result.error });
  throw errors.scannerUnavailable();
}
