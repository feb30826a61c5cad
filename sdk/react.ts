/**
 * `useFormwell(publicId)`: the React hook over the same client (`@formwell/client/react`).
 * React is the page's own (a peer dependency); this module is not part of formwell.js.
 * @module
 */
import { useCallback, useState } from "react";
import { createUseFormwell } from "./src/hook.ts";

export type { FormwellState, UseFormwell, UseFormwellOptions } from "./src/hook.ts";

/** `const { submit, status, fieldErrors } = useFormwell("fAbc123")`. */
export const useFormwell: ReturnType<typeof createUseFormwell> = createUseFormwell({
  useState,
  useCallback,
});
