/**
 * The layout's rules as pure functions over a module graph (project-relative paths), and
 * the graph of the real code read from `deno info --json`. Used by architecture_test.ts.
 * @module
 */

/** One import: the module imported and whether only types are taken from it. */
export interface Edge {
  to: string;
  typeOnly: boolean;
}

/** Project modules (paths relative to the project root) and what each imports. */
export type Graph = Map<string, Edge[]>;

/** One broken rule, naming the modules involved. */
export interface Violation {
  rule: string;
  modules: string[];
}

/** Builds a graph from edges written `"a.ts -> b.ts"` (code) or `"a.ts -type-> b.ts"`. */
export function graphOf(lines: string[]): Graph {
  const graph: Graph = new Map();
  for (const line of lines) {
    const m = /^(\S+) (->|-type->) (\S+)$/.exec(line);
    if (!m) throw new Error(`Not an edge: ${line}`);
    const [, from, arrow, to] = m;
    if (!graph.has(to)) graph.set(to, []);
    const edges = graph.get(from) ?? [];
    edges.push({ to, typeOnly: arrow === "-type->" });
    graph.set(from, edges);
  }
  return graph;
}

interface InfoDependency {
  code?: { specifier?: string };
  type?: { specifier?: string };
}

interface InfoJson {
  modules: { specifier: string; dependencies?: InfoDependency[] }[];
}

/**
 * Adds the project modules of one `deno info --json` output to `graph`; files outside
 * `rootUrl` or under node_modules are left out. An import is type-only when deno info
 * lists it with a `type` resolution and no `code` one (`import type`, `export type`).
 */
export function addInfo(graph: Graph, info: InfoJson, rootUrl: string): Graph {
  const local = (s: string | undefined) =>
    s && s.startsWith(rootUrl) && !s.includes("/node_modules/") ? s.slice(rootUrl.length) : null;
  for (const mod of info.modules) {
    const from = local(mod.specifier);
    if (!from) continue;
    const edges = new Map<string, Edge>();
    for (const dep of mod.dependencies ?? []) {
      const code = local(dep.code?.specifier);
      const type = local(dep.type?.specifier);
      const to = code ?? type;
      if (!to) continue;
      const typeOnly = !code && (edges.get(to)?.typeOnly ?? true);
      edges.set(to, { to, typeOnly });
    }
    graph.set(from, [...edges.values()]);
  }
  return graph;
}

/**
 * Runs `deno info --json` on each root, then on every source file under `folders` that no
 * root reached (a task's entry, a module only tests use), and returns the project's graph.
 */
export async function readGraph(
  roots: string[],
  projectDir: string,
  folders: string[] = [],
): Promise<Graph> {
  const rootUrl = new URL(projectDir.endsWith("/") ? projectDir : `${projectDir}/`, "file://").href;
  const graph: Graph = new Map();
  for (const root of roots) await addRoot(graph, root, projectDir, rootUrl);
  for (const folder of folders) {
    for (const file of await sourceFiles(projectDir, folder)) {
      if (!graph.has(file)) await addRoot(graph, file, projectDir, rootUrl);
    }
  }
  return graph;
}

async function addRoot(
  graph: Graph,
  root: string,
  projectDir: string,
  rootUrl: string,
): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", root],
    cwd: projectDir,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`deno info ${root} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  addInfo(graph, JSON.parse(new TextDecoder().decode(out.stdout)), rootUrl);
}

/** The .ts/.tsx files under a folder of the project, as project-relative paths. */
async function sourceFiles(projectDir: string, folder: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(`${projectDir}/${folder}`)) {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory) found.push(...await sourceFiles(projectDir, path));
    else if (/\.tsx?$/.test(entry.name)) found.push(path);
  }
  return found.sort();
}

/** Every import cycle (Tarjan's strongly connected components), type-only imports included. */
export function cycles(graph: Graph): Violation[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: Violation[] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const { to } of graph.get(v) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(v, Math.min(low.get(v)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(v, Math.min(low.get(v)!, index.get(to)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    const selfLoop = (graph.get(v) ?? []).some((e) => e.to === v);
    if (component.length > 1 || selfLoop) {
      found.push({ rule: "import cycle", modules: component.sort() });
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

function edgesWhere(
  graph: Graph,
  rule: string,
  broken: (from: string, edge: Edge) => boolean,
): Violation[] {
  const found: Violation[] = [];
  for (const [from, edges] of graph) {
    for (const edge of edges) {
      if (broken(from, edge)) found.push({ rule, modules: [from, edge.to] });
    }
  }
  return found;
}

/** lib/ never imports routes/ or islands/ (not even types). */
export function libImportsUi(graph: Graph): Violation[] {
  return edgesWhere(
    graph,
    "lib imports routes or islands",
    (from, { to }) =>
      from.startsWith("lib/") && (to.startsWith("routes/") || to.startsWith("islands/")),
  );
}

/** The one lib/ folder browser code may run: a form's rules (pure, browser-safe). */
export const BROWSER_LIB = "lib/rules/";

/**
 * islands/ (code shipped to browsers) imports only islands/, components/, lib/rules/, the
 * client library (sdk/src/, itself browser-safe) and types from lib/; components/ (pure view helpers shared by islands and lib) imports only
 * components/, lib/rules/ and types from lib/.
 */
export function browserImportsServer(graph: Graph): Violation[] {
  return edgesWhere(graph, "island or component imports server code", (from, { to, typeOnly }) => {
    const island = from.startsWith("islands/");
    if (!island && !from.startsWith("components/")) return false;
    if (to.startsWith("components/") || (island && to.startsWith("islands/"))) return false;
    if (to.startsWith(BROWSER_LIB) || (island && to.startsWith("sdk/src/"))) return false;
    return !(to.startsWith("lib/") && typeOnly);
  });
}

/** The client library (sdk/) imports only sdk/ and lib/rules/ (it is bundled for browsers). */
export function sdkImportsServer(graph: Graph): Violation[] {
  return edgesWhere(graph, "client library imports server code", (from, { to }) => {
    if (!from.startsWith("sdk/")) return false;
    return !to.startsWith("sdk/") && !to.startsWith(BROWSER_LIB);
  });
}

/** lib/rules/ imports only lib/rules/ (not even types), so it bundles into browser code. */
export function rulesImportOutside(graph: Graph): Violation[] {
  return edgesWhere(
    graph,
    "lib/rules imports outside itself",
    (from, { to }) => from.startsWith(BROWSER_LIB) && !to.startsWith(BROWSER_LIB),
  );
}

/** Whether a routes/ path is a shared helper: a file or folder named with a leading `_`. */
function isRouteHelper(path: string): boolean {
  return path.split("/").slice(1).some((part) => part.startsWith("_"));
}

function dirOf(path: string): string {
  return path.slice(0, path.lastIndexOf("/") + 1);
}

/**
 * A route never imports another route's module. Allowed: `_`-prefixed helpers (shared by
 * any route), and a folder's `mod.ts` or generated manifest (`_routes.gen.ts`) mounting the
 * routes below it (the composition).
 */
export function routeImportsRoute(graph: Graph): Violation[] {
  return edgesWhere(graph, "route imports another route", (from, { to }) => {
    if (!from.startsWith("routes/") || !to.startsWith("routes/")) return false;
    if (isRouteHelper(to)) return false;
    const composes = /\/(mod|_routes\.gen)\.ts$/.test(from) && to.startsWith(dirOf(from));
    return !composes;
  });
}

/** Every rule of the server's graph, in the order the test reports them (the sdk's apart). */
export const RULES = [
  cycles,
  libImportsUi,
  browserImportsServer,
  rulesImportOutside,
  routeImportsRoute,
];

/** Human-readable lines for a list of violations. */
export function describe(found: Violation[]): string {
  return found.map((v) => `${v.rule}: ${v.modules.join(v.rule === "import cycle" ? ", " : " -> ")}`)
    .join("\n");
}
