/**
 * The hosted form's file fields: each chosen file is checked (type, size) and uploaded at
 * once through a signed URL, with its progress; the submit waits for the uploads and sends
 * their references.
 * @module
 */
import { useRef, useState } from "preact/hooks";
import type { Field } from "@/lib/schemas.ts";
import { checkFile, formatterFor, uiText } from "@/lib/rules/mod.ts";
import { type FileRef, UploadError, uploadFile } from "./client.ts";
import type { FileState } from "./fields.tsx";

/** The page's uploads: their states, references and jobs, and the change handler. */
export function useUploads(
  apiBase: string,
  formId: string,
  lang: string,
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
    // The rules module's own file checks (type, empty, size), in the page's language.
    // The type the upload will declare (client.ts): what the service checks too.
    const facts = { type: file.type || "application/octet-stream", size: file.size };
    const [problem] = checkFile(field, facts, { messages: formatterFor(lang) });
    if (problem) return fail(problem.message);
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
        fail(err instanceof UploadError ? err.message : uiText(lang, "upload_failed"));
      })
      .finally(() => {
        if (uploads.current[field.name] === job) delete uploads.current[field.name];
      });
    uploads.current[field.name] = job;
  }

  return { files, refs, uploads, onFile };
}
