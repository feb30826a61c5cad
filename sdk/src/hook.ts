/**
 * The React hook's logic, over the hooks it is given (React's `useState` and `useCallback`
 * in `react.ts`): a submit function and the state of the last submission (`submitting`,
 * `queued`, `succeeded`, `failed`), its result, error, field errors and upload progress.
 * @module
 */
import { Formwell, type FormwellError, type SubmitOptions } from "../mod.ts";
import type { SubmitResult } from "./types.ts";
import type { UploadProgress } from "./upload.ts";

/** The two hooks `useFormwell` needs, as React (or Preact's compat) provides them. */
export interface Hooks {
  useState<S>(
    initial: S | (() => S),
  ): [S, (next: S | ((prev: S) => S)) => void];
  useCallback<T extends (...args: never[]) => unknown>(
    fn: T,
    deps: readonly unknown[],
  ): T;
}

/** Options of `useFormwell`. */
export interface UseFormwellOptions {
  /** A client to share; else one is made for `baseUrl`. */
  client?: Formwell;
  baseUrl?: string;
}

/** Where the last submission stands. */
export interface FormwellState {
  status: "idle" | "submitting" | "queued" | "succeeded" | "failed";
  result?: SubmitResult;
  error?: FormwellError;
  progress?: UploadProgress;
}

/** What `useFormwell` returns. */
export interface UseFormwell extends FormwellState {
  /** The first error message of each field of the last failure. */
  fieldErrors: Record<string, string>;
  /** Submits; resolves the result, or undefined when it failed (see `error`). */
  submit: (
    data: Record<string, unknown>,
    opts?: SubmitOptions,
  ) => Promise<SubmitResult | undefined>;
  reset: () => void;
  client: Formwell;
}

/** Makes `useFormwell` over the given hooks. */
export function createUseFormwell(react: Hooks) {
  return function useFormwell(
    publicId: string,
    opts: UseFormwellOptions = {},
  ): UseFormwell {
    const [client] = react.useState(() => opts.client ?? new Formwell({ baseUrl: opts.baseUrl }));
    const [state, setState] = react.useState<FormwellState>({ status: "idle" });
    const submit = react.useCallback(
      async (data: Record<string, unknown>, o: SubmitOptions = {}) => {
        setState({ status: "submitting" });
        try {
          const result = await client.submit(publicId, data, {
            ...o,
            onQueued: () => {
              setState((s) => ({ ...s, status: "queued" }));
              o.onQueued?.();
            },
            onProgress: (progress) => {
              setState((s) => ({ ...s, progress }));
              o.onProgress?.(progress);
            },
          });
          setState({ status: "succeeded", result });
          return result;
        } catch (err) {
          setState({ status: "failed", error: err as FormwellError });
          return undefined;
        }
      },
      [client, publicId],
    );
    const reset = react.useCallback(() => setState({ status: "idle" }), []);
    return {
      ...state,
      fieldErrors: state.error?.fieldErrors ?? {},
      submit,
      reset,
      client,
    };
  };
}
