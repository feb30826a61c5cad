/**
 * The hosted form's file fields: each chosen file is checked (type, size) and uploaded at
 * once through a signed URL, with its progress; the submit waits for the uploads and sends
 * their references.
 * @module
 */
import { useRef, useState } from "preact/hooks";
import type { Field } from "@/lib/schemas.ts";
import { typeMatches } from "@/components/fields.ts";
import { type FileRef, UploadError, uploadFile } from "./client.ts";
import type { FileState } from "./fields.tsx";

/** The page's uploads: their states, references and jobs, and the change handler. */
export function useUploads(
  apiBase: string,
  formId: string,
  setErrors: (update: (prev: Record<string, string>) => Record<string, string>) => void,
) {
  const [files, setFiles] = useState<Record<string, FileState>>({});
  const refs = useRef<Record<string, FileRef | undefined>>({});
  const uploads = useRef<Record<string, Promise<void>>>({});

  function onFile(field: Field, input: HTMLInputElement) {
    const file = input.files?.[0];
    refs.current[field.name] = undefined;
    delete uploads.current[field.name];
    setFiles(({ [field.name]: _, ...rest }) => rest);
    const fail = (message: string) => setErrors((p) => ({ ...p, [field.name]: message }));
    setErrors(({ [field.name]: _, ...rest }) => rest);
    if (!file) return;
    if (!typeMatches(file.type || "application/octet-stream", field.allowedTypes)) {
      return fail(`${field.label || field.name}: this type of file is not accepted.`);
    }
    if (field.maxSizeMB && file.size > field.maxSizeMB * 1024 * 1024) {
      return fail(`${field.label || field.name}: the file is larger than ${field.maxSizeMB} MB.`);
    }
    const set = (s: FileState) => setFiles((p) => ({ ...p, [field.name]: s }));
    set({ status: "uploading", progress: 0, name: file.name });
    const job = uploadFile(
      apiBase,
      formId,
      field,
      file,
      (progress) => set({ status: "uploading", progress, name: file.name }),
    )
      .then((ref) => {
        refs.current[field.name] = ref;
        set({ status: "done", progress: 1, name: file.name });
      })
      .catch((err) => {
        set({ status: "error", progress: 0, name: file.name });
        fail(err instanceof UploadError ? err.message : "The file could not be uploaded.");
      })
      .finally(() => {
        if (uploads.current[field.name] === job) delete uploads.current[field.name];
      });
    uploads.current[field.name] = job;
  }

  return { files, refs, uploads, onFile };
}
