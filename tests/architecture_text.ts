/**
 * Architecture checks that read source text rather than the module graph. Used by
 * architecture_test.ts.
 *
 * Code kept for data that was never released: Formwell has no stored data older than its
 * code, so `lib/` reads no old record shape, migrates nothing and carries no shim. What
 * gives such code away is how it explains itself (comments and names), so this reads the
 * text: a line that says it handles data written "before X existed", by "earlier
 * versions", a "legacy" value, a migration or a compatibility shim.
 * @module
 */

/** What marks code for unreleased data, with why each is named. */
const MARKS: [RegExp, string][] = [
  [/legacy/i, "legacy"],
  [/\bmigrat(e|es|ed|ion|ions|ing)\b/i, "a migration"],
  [/shim/i, "a shim"],
  [/\bback(ward)?s?[- ]?compat/i, "backward compatibility"],
  [/\bcompat(ibility)? (shim|layer|code|path)/i, "compatibility code"],
  [/\bold (shape|format|record|value|job|entry|key)s?\b/i, "an old shape"],
  [
    /\b(from|made|stored|written|saved|enqueued|created|kept) before [^.;]{0,40}\b(existed|were added|was added|was kept|were kept|counted)\b/i,
    "data from before a change",
  ],
  [/\bearlier (versions?|releases?|code)\b/i, "data from earlier versions"],
  [/\bolder (records|jobs|values|entries|grants|invitations|events|endpoints)\b/i, "older records"],
  [/\bno longer written\b/i, "a key no longer written"],
  [
    /\babsent (in|on) (records|jobs|values|entries|grants) (from|stored|written|made)\b/i,
    "a field absent on old records",
  ],
];

/** One line of `source` (1-based) that marks code for unreleased data, and the mark. */
export interface UnreleasedMark {
  line: number;
  mark: string;
  text: string;
}

/** The lines of `source` that mark code for data never released. */
export function unreleasedMarks(source: string): UnreleasedMark[] {
  const found: UnreleasedMark[] = [];
  source.split("\n").forEach((text, i) => {
    for (const [re, mark] of MARKS) {
      if (re.test(text)) {
        found.push({ line: i + 1, mark, text: text.trim() });
        break;
      }
    }
  });
  return found;
}

/** Source text without its comments (a line comment's `//` inside a string aside). */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

/**
 * The HTTP types a module of `source` uses: the Fetch API's `Request`, `Response` and
 * `Headers`, and anything of Hono (its `Context` above all). lib/submissions decides on
 * parsed input; reading requests and shaping answers is the routes' work.
 */
export function httpTypes(source: string): string[] {
  const code = withoutComments(source);
  const found = new Set<string>();
  for (const m of code.matchAll(/(?<![\w.$])(Request|Response|Headers)\b(?!\w)/g)) found.add(m[1]);
  for (const m of code.matchAll(/from\s+"(hono(?:\/[^"]*)?)"/g)) found.add(m[1]);
  return [...found].sort();
}
