/**
 * Inline previews of uploaded images in the admin. Only raster types whose bytes were
 * verified at upload (the grant's `mime_type`, not what the client declared) are shown;
 * SVG, HTML and everything else are never served inline from our origin: they download.
 * @module
 */
import type { Storage } from "./storage/storage.ts";
import { fileKey, type UploadGrant } from "./grants.ts";

/** Verified types shown inline; a browser renders them as pictures, never as documents. */
export const PREVIEW_TYPES: readonly string[] = [
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "image/avif",
];

/** Larger images are not previewed (the download link still works). */
export const MAX_PREVIEW_BYTES = 10 * 1024 * 1024;

/** Whether a file of this verified type and size gets an inline preview. */
export function previewable(mimeType: string | undefined, sizeBytes: number): boolean {
  return !!mimeType && PREVIEW_TYPES.includes(mimeType) && sizeBytes <= MAX_PREVIEW_BYTES;
}

/**
 * The image bytes as an inline response, or null when the file is not previewable. Its
 * verified type and `nosniff` keep it a picture even if opened directly (the admin adds its
 * own `default-src 'none'` policy to every response).
 */
export async function previewResponse(
  storage: Pick<Storage, "readStart">,
  path: string,
  grant: UploadGrant,
): Promise<Response | null> {
  if (!previewable(grant.mime_type, grant.size_bytes)) return null;
  const bytes = await storage.readStart(fileKey(path), grant.size_bytes);
  return new Response(bytes as Uint8Array<ArrayBuffer>, {
    headers: {
      "Content-Type": grant.mime_type!,
      "Content-Disposition": "inline",
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "private, no-store",
    },
  });
}
