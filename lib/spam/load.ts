/**
 * Reads the committed model file. The caller (the composition root, or a lazy field of
 * its deps) keeps the result: nothing here caches at module scope.
 * @module
 */
import { createSpamModel, type ModelJson, type SpamModel } from "./model.ts";

/** Where the committed model lives. */
export const MODEL_URL = new URL("./model.json", import.meta.url);

/** Reads and parses the committed model file. */
export async function loadModelJson(url: URL = MODEL_URL): Promise<ModelJson> {
  return JSON.parse(await Deno.readTextFile(url)) as ModelJson;
}

/** Reads the committed model and builds it for scoring (call once, keep the result). */
export async function loadModel(url: URL = MODEL_URL): Promise<SpamModel> {
  return createSpamModel(await loadModelJson(url));
}

/**
 * A loader that reads the model on first use and keeps it in its closure: put it in a deps
 * field (`spamModel: modelLoader()`) and `await deps.spamModel()` where scoring needs it.
 */
export function modelLoader(url: URL = MODEL_URL): () => Promise<SpamModel> {
  let model: Promise<SpamModel> | undefined;
  return () => {
    model ??= loadModel(url).catch((err) => {
      model = undefined; // a failed read is retried on the next use
      throw err;
    });
    return model;
  };
}
