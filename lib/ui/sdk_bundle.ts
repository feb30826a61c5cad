/**
 * The client library's bundles (`sdk/`): `formwell.js` (the browser core, served at
 * `/sdk/formwell.js`), `server.js` (self-contained) and `react.js` (which imports
 * `./formwell.js` rather than carry a copy of the client), each minified with a linked source map, built with esbuild. Written by
 * `deno task build-sdk` into `sdk/dist/` with a stamp of the sources; the service serves
 * that build while the stamp matches the sources, else builds in memory on first use.
 * @module
 */
import type { BuiltFile } from "./islands.ts";

const SDK_DIR = new URL("../../sdk/", import.meta.url);
const DIST_DIR = new URL("dist/", SDK_DIR);
const STAMP_FILE = "build.json";
/**
 * The bundles and their entry modules under `sdk/`. `check.js` (not served) is the data
 * check alone, which every form's generated TypeScript module embeds (lib/forms/typescript.ts);
 * `cli.js` (not served) is the npm package's `formwell` bin.
 */
const ENTRIES = {
  formwell: "mod.ts",
  server: "server.ts",
  react: "react.ts",
  check: "src/validate.ts",
  cli: "cli.ts",
};

let building: Promise<Map<string, BuiltFile>> | null = null;

async function sha256Hex(data: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(data),
  );
  return Array.from(
    new Uint8Array(digest),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}

async function sourceFiles(dir: URL, prefix = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (e.isDirectory && e.name !== "dist" && e.name !== "node_modules") {
      found.push(
        ...await sourceFiles(new URL(`${e.name}/`, dir), `${prefix}${e.name}/`),
      );
    } else if (
      e.isFile && (e.name.endsWith(".ts") || e.name === "package.json")
    ) {
      found.push(prefix + e.name);
    }
  }
  return found.sort();
}

/** The rules module (lib/rules), bundled into the library. */
const RULES_DIR = new URL("../rules/", import.meta.url);

/** A digest of every source of the library, lib/rules included: a build is current while it matches. */
export async function sourceStamp(): Promise<string> {
  const parts: string[] = [];
  for (const [dir, prefix] of [[SDK_DIR, ""], [RULES_DIR, "lib/rules/"]] as const) {
    for (const f of await sourceFiles(dir)) {
      parts.push(prefix + f, await Deno.readTextFile(new URL(f, dir)));
    }
  }
  return await sha256Hex(parts.join("\0"));
}

let version: Promise<string> | null = null;

/** The library's version (its package.json), part of every ETag. */
export function sdkVersion(): Promise<string> {
  version ??= Deno.readTextFile(new URL("package.json", SDK_DIR)).then((t) =>
    JSON.parse(t).version
  );
  return version;
}

async function withHash(
  name: string,
  contents: string,
): Promise<[string, BuiltFile]> {
  return [name, { contents, hash: (await sha256Hex(contents)).slice(0, 16) }];
}

/** Bundles the three entries with esbuild; file names as `formwell.js`, `formwell.js.map`... */
export async function bundleSdk(): Promise<Map<string, BuiltFile>> {
  const esbuild = await import("esbuild");
  const sdk = new URL(SDK_DIR).pathname;
  const core = `${sdk}mod.ts`;
  try {
    const result = await esbuild.build({
      entryPoints: Object.fromEntries(
        Object.entries(ENTRIES).map(([k, v]) => [k, sdk + v]),
      ),
      bundle: true,
      format: "esm",
      platform: "neutral",
      // Packages the rules module uses (json-logic-js) name only a CommonJS `main`.
      mainFields: ["module", "main"],
      target: ["es2022"],
      outdir: `${sdk}dist`,
      write: false,
      minify: true,
      sourcemap: "linked",
      sourcesContent: true,
      legalComments: "none",
      external: ["react", "node:*"],
      absWorkingDir: sdk,
      logLevel: "silent",
      plugins: [{
        name: "formwell-core",
        setup(build) {
          // react.js takes the client the page imported instead of bundling a copy.
          build.onResolve({ filter: /mod\.ts$/ }, (a) => {
            if (a.kind === "entry-point") return undefined;
            const target = new URL(a.path, `file://${a.importer}`).pathname;
            return target === core ? { path: "./formwell.js", external: true } : undefined;
          });
        },
      }],
    });
    return new Map(
      await Promise.all(
        result.outputFiles.map((f) => withHash(f.path.replace(/^.*\//, ""), f.text)),
      ),
    );
  } finally {
    await esbuild.stop();
  }
}

async function loadPrebuilt(): Promise<Map<string, BuiltFile> | null> {
  try {
    const meta = JSON.parse(
      await Deno.readTextFile(new URL(STAMP_FILE, DIST_DIR)),
    );
    if (meta.stamp !== await sourceStamp()) return null;
    const files = new Map<string, BuiltFile>();
    for (const name of meta.files as string[]) {
      files.set(
        ...await withHash(
          name,
          await Deno.readTextFile(new URL(name, DIST_DIR)),
        ),
      );
    }
    return files;
  } catch {
    return null;
  }
}

/** The built files: the current prebuilt ones when present, else bundled once per process. */
export function sdkFiles(): Promise<Map<string, BuiltFile>> {
  building ??= loadPrebuilt().then((pre) => pre ?? bundleSdk());
  building.catch(() => building = null);
  return building;
}

/** Bytes of `text` minified as built and gzip-compressed. */
export async function gzipBytes(text: string): Promise<number> {
  const stream = new Blob([text]).stream().pipeThrough(
    new CompressionStream("gzip"),
  );
  return (await new Response(stream).arrayBuffer()).byteLength;
}

/** Writes the bundles and the stamp to `sdk/dist/`; returns each file's size and gzip size. */
export async function writeSdk(): Promise<
  Record<string, { bytes: number; gzip: number }>
> {
  const files = await bundleSdk();
  await Deno.remove(DIST_DIR, { recursive: true }).catch(() => {});
  await Deno.mkdir(DIST_DIR, { recursive: true });
  const sizes: Record<string, { bytes: number; gzip: number }> = {};
  for (const [name, f] of files) {
    await Deno.writeTextFile(new URL(name, DIST_DIR), f.contents);
    if (name.endsWith(".js")) {
      const code = f.contents.replace(/\n\/\/# sourceMappingURL=.*\n?$/, "");
      sizes[name] = {
        bytes: new TextEncoder().encode(code).length,
        gzip: await gzipBytes(code),
      };
    }
  }
  const meta = { stamp: await sourceStamp(), files: [...files.keys()].sort() };
  await Deno.writeTextFile(
    new URL(STAMP_FILE, DIST_DIR),
    JSON.stringify(meta, null, 2) + "\n",
  );
  return sizes;
}
