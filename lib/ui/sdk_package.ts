/**
 * The client library as an npm package, `@formwell/client` (served at
 * `/sdk/formwell-client.tgz`): the same bundles as `/sdk/formwell.js`, `server.js`,
 * `react.js` and the `formwell` bin, with `.d.ts` types made by `tsc`, packed by `npm pack`.
 * Versioned with the server. `deno task build-sdk` writes it into `sdk/dist/` with a stamp
 * of the sources; the service serves that file while the stamp matches, else builds it once
 * in the background of the first request that asks for it.
 * @module
 */
import { FORMWELL_VERSION } from "@/lib/ops/version.ts";
import { sdkFiles, sourceStamp } from "./sdk_bundle.ts";

const ROOT = new URL("../../", import.meta.url);
const SDK_DIR = new URL("sdk/", ROOT);
const DIST_DIR = new URL("dist/", SDK_DIR);
/** The package's file name, in `sdk/dist/` and in the URL. */
export const CLIENT_TGZ = "formwell-client.tgz";
const STAMP_FILE = "formwell-client.json";
/** The bundles the package ships (with their source maps). */
const BUNDLES = ["formwell.js", "server.js", "react.js", "cli.js"];
/** The entries whose types the package ships, and the export each one is. */
const TYPED = { ".": "mod", "./server": "server", "./react": "react" } as const;
/** `react.ts` imports React, a peer dependency whose types the project does not install. */
const REACT_TYPES =
  `declare module "react" { export const useState: any; export const useCallback: any; }\n`;

async function run(cmd: string, args: string[], cwd: string): Promise<void> {
  const out = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  if (!out.success) {
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    throw new Error(`${cmd} ${args.join(" ")} failed:\n${text.slice(0, 4000)}`);
  }
}

/** The package manifest: sdk/package.json's description of the package, at the server's version. */
async function manifest(): Promise<Record<string, unknown>> {
  const src = JSON.parse(await Deno.readTextFile(new URL("package.json", SDK_DIR)));
  const exports: Record<string, unknown> = {};
  for (const [path, name] of Object.entries(TYPED)) {
    const js = name === "mod" ? "formwell" : name;
    exports[path] = { types: `./types/sdk/${name}.d.ts`, default: `./dist/${js}.js` };
  }
  exports["./formwell.schema.json"] = "./formwell.schema.json";
  return {
    name: src.name,
    version: FORMWELL_VERSION,
    description: src.description,
    license: src.license,
    type: "module",
    sideEffects: false,
    types: "./types/sdk/mod.d.ts",
    exports,
    bin: { formwell: "./dist/cli.js" },
    files: ["dist", "types", "README.md", "formwell.schema.json"],
    peerDependencies: src.peerDependencies,
    peerDependenciesMeta: src.peerDependenciesMeta,
    engines: src.engines,
  };
}

/** Writes the `.d.ts` of the typed entries (and what they import) under `out`. */
async function writeTypes(work: string, out: string): Promise<void> {
  const root = new URL(ROOT).pathname;
  await Deno.writeTextFile(`${work}/react-types.d.ts`, REACT_TYPES);
  const config = {
    compilerOptions: {
      declaration: true,
      emitDeclarationOnly: true,
      allowImportingTsExtensions: true,
      target: "es2022",
      module: "nodenext",
      moduleResolution: "nodenext",
      strict: true,
      skipLibCheck: true,
      lib: ["es2022", "dom", "dom.iterable"],
      types: [],
      rootDir: root,
      outDir: out,
    },
    files: [
      `${work}/react-types.d.ts`,
      ...Object.values(TYPED).map((n) => `${root}sdk/${n}.ts`),
    ],
  };
  await Deno.writeTextFile(`${work}/tsconfig.json`, JSON.stringify(config));
  await run(
    "node",
    [`${root}node_modules/typescript/bin/tsc`, "-p", `${work}/tsconfig.json`],
    work,
  );
  // The sources import with `.ts`; a published package's declarations name `.js`.
  await rewriteImports(out);
}

async function rewriteImports(dir: string): Promise<void> {
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) await rewriteImports(path);
    else if (e.name.endsWith(".d.ts")) {
      const text = await Deno.readTextFile(path);
      await Deno.writeTextFile(
        path,
        text.replace(/(["'])(\.{1,2}\/[^"']*?)\.ts\1/g, "$1$2.js$1"),
      );
    }
  }
}

/** Builds the package and returns the `npm pack` tarball (gzip tar, `package/` prefix). */
export async function buildClientPackage(): Promise<Uint8Array> {
  const files = await sdkFiles();
  const work = await Deno.makeTempDir({ prefix: "formwell-client-" });
  try {
    const pkg = `${work}/package`;
    await Deno.mkdir(`${pkg}/dist`, { recursive: true });
    for (const name of BUNDLES.flatMap((b) => [b, `${b}.map`])) {
      const file = files.get(name);
      if (!file) throw new Error(`The client library build has no ${name}.`);
      await Deno.writeTextFile(`${pkg}/dist/${name}`, file.contents);
    }
    await Deno.chmod(`${pkg}/dist/cli.js`, 0o755);
    await writeTypes(work, `${pkg}/types`);
    for (const name of ["README.md", "formwell.schema.json"]) {
      await Deno.copyFile(new URL(name, SDK_DIR), `${pkg}/${name}`);
    }
    await Deno.writeTextFile(`${pkg}/package.json`, JSON.stringify(await manifest(), null, 2));
    await run("npm", ["pack", "--ignore-scripts", "--pack-destination", work], pkg);
    return await Deno.readFile(`${work}/formwell-client-${FORMWELL_VERSION}.tgz`);
  } finally {
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}

async function stamp(): Promise<string> {
  return `${FORMWELL_VERSION}-${await sourceStamp()}`;
}

async function loadPrebuilt(): Promise<Uint8Array | null> {
  try {
    const meta = JSON.parse(await Deno.readTextFile(new URL(STAMP_FILE, DIST_DIR)));
    if (meta.stamp !== await stamp()) return null;
    return await Deno.readFile(new URL(CLIENT_TGZ, DIST_DIR));
  } catch {
    return null;
  }
}

let building: Promise<Uint8Array> | null = null;

/** The package tarball: the current prebuilt one when present, else built once per process. */
export function clientPackage(): Promise<Uint8Array> {
  building ??= loadPrebuilt().then((pre) => pre ?? buildClientPackage());
  building.catch(() => building = null);
  return building;
}

/** Writes the package and its stamp to `sdk/dist/` (after the bundles); returns its size. */
export async function writeClientPackage(): Promise<{ bytes: number }> {
  const tgz = await buildClientPackage();
  await Deno.mkdir(DIST_DIR, { recursive: true });
  await Deno.writeFile(new URL(CLIENT_TGZ, DIST_DIR), tgz);
  await Deno.writeTextFile(
    new URL(STAMP_FILE, DIST_DIR),
    JSON.stringify({ stamp: await stamp() }, null, 2) + "\n",
  );
  return { bytes: tgz.byteLength };
}
