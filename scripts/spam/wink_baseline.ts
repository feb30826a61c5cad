/**
 * The library baseline the content model was measured against: npm
 * `wink-naive-bayes-text-classifier` (binarised naive Bayes) with `wink-nlp-utils`
 * preparation (HTML stripped, tokenize0, stop words removed, Porter stem). Used only by
 * scripts/train_spam.ts to report its validation figures next to the chosen model.
 * @module
 */
import winkClassifier from "wink-naive-bayes-text-classifier";
import winkUtils from "wink-nlp-utils";

interface WinkNb {
  definePrepTasks(tasks: Array<(input: string) => unknown>): number;
  defineConfig(cfg: { considerOnlyPresence: boolean; smoothingFactor: number }): boolean;
  learn(input: string, label: string): boolean;
  consolidate(): boolean;
  computeOdds(input: string): Array<[string, number]>;
  exportJSON(): string;
}

interface WinkUtils {
  string: {
    removeHTMLTags(s: string): string;
    tokenize0(s: string): string[];
  };
  tokens: {
    removeWords(t: string[]): string[];
    stem(t: string[]): string[];
  };
}

const utils = winkUtils as unknown as WinkUtils;

function prep(text: string): string[] {
  return utils.tokens.stem(
    utils.tokens.removeWords(utils.string.tokenize0(utils.string.removeHTMLTags(text))),
  );
}

/** A trained wink classifier: probability of spam for a text, and its exported size. */
export interface WinkModel {
  p(text: string): number;
  bytes: number;
}

/** Trains the baseline on labelled texts. */
export function trainWink(docs: ReadonlyArray<{ text: string; spam: boolean }>): WinkModel {
  const nb = (winkClassifier as unknown as () => WinkNb)();
  nb.definePrepTasks([prep]);
  nb.defineConfig({ considerOnlyPresence: true, smoothingFactor: 0.5 });
  for (const d of docs) nb.learn(d.text, d.spam ? "spam" : "ham");
  nb.consolidate();
  return {
    p(text: string): number {
      const odds = nb.computeOdds(text);
      const spam = odds.find(([label]) => label === "spam");
      if (!spam) return 0.5;
      // computeOdds gives log2 odds of the label.
      return 1 / (1 + Math.pow(2, -spam[1]));
    },
    bytes: new TextEncoder().encode(nb.exportJSON()).length,
  };
}
