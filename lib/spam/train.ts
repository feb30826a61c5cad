/**
 * Training of the content model, shared by scripts/train_spam.ts and the tests: the
 * header the model file carries, the text a message becomes, a deterministic trainer.
 * @module
 */
import type { FieldType } from "@/lib/schemas.ts";
import { CORPUS, TRAINING_FOLDERS } from "./corpus.ts";
import { type ModelJson, type ModelParams, trainCounts } from "./model.ts";
import { submissionText } from "./submission_text.ts";
import { tokenize } from "./tokens.ts";

/** The model's parameters (SpamBayes' defaults for s, x, distance and token count). */
export const PARAMS: ModelParams = {
  strength: 0.45,
  prior: 0.5,
  minDistance: 0.1,
  maxTokens: 150,
  minCount: 3,
  fullEvidence: 30,
  fullEvidenceChars: 800,
};

/** Everything in the model file but the counts. */
export type ModelHeader = Omit<ModelJson, "messages" | "tokens">;

/** The header the training script writes. */
export function modelHeader(): ModelHeader {
  return {
    version: 1,
    method: "robinson-fisher",
    corpus: CORPUS,
    folders: [TRAINING_FOLDERS.ham, TRAINING_FOLDERS.spam],
    split: "all messages of both folders (validation: FNV-1a of the file name % 5 == 0)",
    params: PARAMS,
  };
}

/** A labelled text as a form would receive it. */
export interface LabelledText {
  subject: string;
  text: string;
  spam: boolean;
}

/** The contact form the validation types each message into. */
export const CONTACT_FORM: { fields: Array<{ name: string; type: FieldType }> } = {
  fields: [
    { name: "name", type: "text" },
    { name: "subject", type: "text" },
    { name: "message", type: "textarea" },
  ],
};

/** The text the model reads for a labelled message, built as for a real submission. */
export function formText(m: Pick<LabelledText, "subject" | "text">): string {
  const t = submissionText(CONTACT_FORM, { subject: m.subject, message: m.text });
  return t.subject ? `${t.subject}\n${t.text}` : t.text;
}

/** Trains a model on labelled texts. Same input, same bytes. */
export function trainModel(texts: readonly LabelledText[]): ModelJson {
  const docs = texts.map((t) => ({ tokens: tokenize(formText(t)), spam: t.spam }));
  return { ...modelHeader(), ...trainCounts(docs, PARAMS.minCount) };
}
