/**
 * Island bundles for the browser. Each `islands/<Name>.tsx` default-exports a Preact
 * component; it is bundled with esbuild using the automatic `react-jsx` transform (bundles
 * built with `precompile` JSX hydrate but silently lose their handlers) plus a small
 * entry that hydrates every `[data-island="<Name>"]` element with its JSON props and then
 * marks it `data-hydrated` (its handlers are live: what tests and scripts can wait for).
 * Built in memory on first use, or ahead of time by `deno task build` into
 * `static/build/` (Deno Deploy, where esbuild's native binary is unavailable).
 * @module
 */

const ISLANDS_DIR = new URL("../../islands/", import.meta.url);
const PREBUILT_DIR = new URL("../../static/build/", import.meta.url);

/** One built file: an island entry or a shared chunk. */
export interface BuiltFile {
  contents: string;
  hash: string;
}

let building: Promise<Map<string, BuiltFile>> | null = null;

/** The island names: the `.tsx` files in `islands/`. */
export async function islandNames(): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(ISLANDS_DIR)) {
    if (e.isFile && e.name.endsWith(".tsx")) names.push(e.name.slice(0, -4));
  }
  return names.sort();
}

function entrySource(name: string): string {
  const file = new URL(`${name}.tsx`, ISLANDS_DIR).pathname;
  return `import { h, hydrate } from "preact";
import Island from ${JSON.stringify(file)};
for (const el of document.querySelectorAll('[data-island=${JSON.stringify(name)}]')) {
  const data = document.getElementById(el.getAttribute("data-props-id") || "");
  hydrate(h(Island, data ? JSON.parse(data.textContent || "{}") : {}), el);
  el.setAttribute("data-hydrated", "");
}
`;
}

/** Bundles every island with esbuild (code-split so Preact is shared). */
export async function bundleIslands(): Promise<Map<string, BuiltFile>> {
  const esbuild = await import("esbuild");
  const names = await islandNames();
  const root = new URL("../../", import.meta.url).pathname;
  const entries = Object.fromEntries(names.map((n) => [n, `island-entry:${n}`]));
  try {
    const result = await esbuild.build({
      entryPoints: entries,
      bundle: true,
      splitting: true,
      format: "esm",
      outdir: "/islands-out",
      write: false,
      minify: true,
      jsx: "automatic",
      jsxImportSource: "preact",
      absWorkingDir: root,
      nodePaths: [`${root}node_modules`],
      target: ["es2020"],
      logLevel: "silent",
      plugins: [{
        name: "island-entries",
        setup(build) {
          // deno.json's "@/" alias, for islands that import across folders.
          build.onResolve({ filter: /^@\// }, (a) => ({ path: root + a.path.slice(2) }));
          build.onResolve(
            { filter: /^island-entry:/ },
            (a) => ({ path: a.path.slice(13), namespace: "island" }),
          );
          build.onLoad({ filter: /.*/, namespace: "island" }, (a) => ({
            contents: entrySource(a.path),
            loader: "ts",
            resolveDir: root,
          }));
        },
      }],
    });
    const files = new Map<string, BuiltFile>();
    for (const f of result.outputFiles) {
      files.set(f.path.replace(/^.*\//, ""), { contents: f.text, hash: f.hash });
    }
    return files;
  } finally {
    await esbuild.stop();
  }
}

async function loadPrebuilt(): Promise<Map<string, BuiltFile> | null> {
  try {
    const files = new Map<string, BuiltFile>();
    for await (const e of Deno.readDir(PREBUILT_DIR)) {
      if (!e.isFile || !e.name.endsWith(".js")) continue;
      const contents = await Deno.readTextFile(new URL(e.name, PREBUILT_DIR));
      files.set(e.name, { contents, hash: String(contents.length) });
    }
    return files.size ? files : null;
  } catch {
    return null;
  }
}

/** The island files: prebuilt ones when present, else bundled once per process. */
export function islandFiles(): Promise<Map<string, BuiltFile>> {
  building ??= loadPrebuilt().then((pre) => pre ?? bundleIslands());
  building.catch(() => building = null);
  return building;
}

/** Writes the bundles to `static/build/` (the `build` task). */
export async function writePrebuilt(): Promise<string[]> {
  const files = await bundleIslands();
  await Deno.remove(PREBUILT_DIR, { recursive: true }).catch(() => {});
  await Deno.mkdir(PREBUILT_DIR, { recursive: true });
  for (const [name, f] of files) await Deno.writeTextFile(new URL(name, PREBUILT_DIR), f.contents);
  return [...files.keys()];
}
