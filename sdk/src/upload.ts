/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The two-step file upload: ask the service for a signed upload URL for a file field, PUT
 * the bytes to it (with the storage token when one is given), and build the file reference
 * the submission carries. Browsers PUT with XMLHttpRequest, which reports upload progress;
 * elsewhere fetch sends the bytes and progress jumps from 0 to done.
 * @module
 */
import { abortError, errorFromAnswer, networkError } from "./errors.ts";
import { type Endpoint, send } from "./http.ts";
import type { FileRef, UploadGrant } from "./types.ts";

/** Upload progress of one file: bytes sent of its size. */
export interface UploadProgress {
  field: string;
  loaded: number;
  total: number;
}

function typeOf(file: Blob): string {
  return file.type || "application/octet-stream";
}

function putWithXhr(
  grant: UploadGrant,
  file: Blob,
  onProgress: (loaded: number) => void,
  signal?: AbortSignal,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", grant.uploadUrl);
    xhr.setRequestHeader("Content-Type", typeOf(file));
    if (grant.storageToken) {
      xhr.setRequestHeader("Authorization", `Bearer ${grant.storageToken}`);
    }
    xhr.upload.onprogress = (e) => onProgress(e.loaded);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) return resolve();
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch { /* storage may answer XML or nothing */ }
      reject(
        errorFromAnswer(
          xhr.status,
          body,
          xhr.getResponseHeader("x-request-id") ?? undefined,
        ),
      );
    };
    xhr.onerror = () => reject(networkError(null));
    xhr.onabort = () => reject(abortError());
    signal?.addEventListener("abort", () => xhr.abort(), { once: true });
    xhr.send(file);
  });
}

async function putWithFetch(
  ep: Endpoint,
  grant: UploadGrant,
  file: Blob,
  signal?: AbortSignal,
): Promise<void> {
  const headers: Record<string, string> = { "content-type": typeOf(file) };
  if (grant.storageToken) {
    headers.authorization = `Bearer ${grant.storageToken}`;
  }
  let res: Response;
  try {
    res = await ep.rt.fetch(grant.uploadUrl, {
      method: "PUT",
      headers,
      body: file,
      signal,
    });
  } catch (err) {
    throw networkError(err);
  }
  const text = await res.text().catch(() => "");
  if (!res.ok) {
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch { /* storage may answer XML or nothing */ }
    throw errorFromAnswer(
      res.status,
      body,
      res.headers.get("x-request-id") ?? undefined,
    );
  }
}

/** Uploads `file` for the field named `field` of form `publicId`; returns its reference. */
export async function uploadFile(
  ep: Endpoint,
  publicId: string,
  field: string,
  file: Blob,
  opts: { signal?: AbortSignal; onProgress?: (p: UploadProgress) => void } = {},
): Promise<FileRef> {
  const name = (file as File).name || field;
  const report = (loaded: number) => opts.onProgress?.({ field, loaded, total: file.size });
  const grant = await send<UploadGrant>(ep, {
    method: "POST",
    path: `/api/v1/forms/p/${encodeURIComponent(publicId)}/upload-url`,
    body: {
      fieldId: field,
      fileName: name,
      contentType: typeOf(file),
      sizeBytes: file.size,
    },
    signal: opts.signal,
  });
  report(0);
  if (ep.rt.xhr) {
    await putWithXhr(grant, file, report, opts.signal);
  } else {
    await putWithFetch(ep, grant, file, opts.signal);
  }
  report(file.size);
  return {
    path: grant.path,
    originalFilename: name,
    mimeType: typeOf(file),
    sizeBytes: file.size,
  };
}
