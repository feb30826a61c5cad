/**
 * Training and validation of the content model, shared by scripts/train_spam.ts and the
 * tests: the header the model file carries, a deterministic trainer, and the figures a
 * scorer reaches on labelled texts through the one verdict (lib/protection/score.ts).
 * @module
 */
import { scoreSpam } from "@/lib/protection/score.ts";
import type { FieldType } from "@/lib/schemas.ts";
import { CORPUS, TRAINING_FOLDERS } from "./corpus.ts";
import { type ContentResult, type ModelJson, type ModelParams, trainCounts } from "./model.ts";
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

/** Validation figures of a content scorer through the one verdict. */
export interface Figures {
  ham: number;
  spam: number;
  /** Ham whose verdict is `spam`. */
  hamSpam: number;
  /** Ham whose verdict is `spam` or `suspicious`. */
  hamFlagged: number;
  /** Spam whose verdict is `spam` or `suspicious`. */
  spamCaught: number;
}

/** Scores each text as an ordinary contact-form submission (neutral behaviour). */
export function evaluate(
  texts: readonly LabelledText[],
  content: (t: LabelledText) => ContentResult,
): Figures {
  const f: Figures = { ham: 0, spam: 0, hamSpam: 0, hamFlagged: 0, spamCaught: 0 };
  for (const t of texts) {
    const v = scoreSpam({
      signals: { ip: "192.0.2.1", user_agent: "Mozilla/5.0", fill_ms: 60_000 },
      fields: { subject: t.subject, message: t.text },
      urlFields: new Set(),
      recentFromIdentity: 0,
      duplicate: false,
      content: content(t),
    });
    if (t.spam) {
      f.spam++;
      if (v.status !== "completed") f.spamCaught++;
    } else {
      f.ham++;
      if (v.status === "spam") f.hamSpam++;
      if (v.status !== "completed") f.hamFlagged++;
    }
  }
  return f;
}
