/**
 * The import contract of `ARCHITECTURE.md`, executed: its table "What each
 * layer may import" names each layer's files and the layers it may import,
 * and this test reads every import of the package's source (static, type-only,
 * re-exports and literal `import()`) and fails on any that the table does not
 * allow, on a file no layer claims, and on a private name (`_`-prefixed file or
 * folder) imported from outside the folder that holds it. Deno only: the Node
 * run (`scripts/test_node.ts`) leaves it out, having no source tree.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** One row of the table: a layer, the paths it holds, what it may import. */
export interface Layer {
  name: string;
  /** Files (`mod.ts`) and folders (`src/cli/`), relative to the root. */
  paths: string[];
  /** Names of the layers its files may import. */
  imports: string[];
}

/** An import of one source file by another, both relative to the root. */
export interface Edge {
  from: string;
  to: string;
  line: number;
}

/** Reads the table "What each layer may import" out of `ARCHITECTURE.md`. */
export function parseLayers(markdown: string): Layer[] {
  const start = markdown.indexOf("## What each layer may import");
  if (start === -1) throw new Error("ARCHITECTURE.md has no import table");
  const rows = markdown.slice(start).split("\n").filter((line) =>
    line.startsWith("|")
  ).slice(2); // the header and its rule
  const layers: Layer[] = [];
  for (const row of rows) {
    const cells = row.split("|").slice(1, -1).map((cell) => cell.trim());
    if (cells.length < 3) break;
    const ticked = (cell: string) =>
      [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
    layers.push({
      name: cells[0]!.replace(/\*/g, ""),
      paths: ticked(cells[1]!),
      imports: ticked(cells[2]!),
    });
  }
  return layers;
}

/** The layer that holds `file`: the longest path of the table that covers it. */
export function layerOf(layers: Layer[], file: string): Layer | undefined {
  let best: Layer | undefined;
  let length = -1;
  for (const layer of layers) {
    for (const path of layer.paths) {
      const covers = path.endsWith("/") ? file.startsWith(path) : file === path;
      if (covers && path.length > length) {
        best = layer;
        length = path.length;
      }
    }
  }
  return best;
}

/**
 * The folder whose files alone may import `file`, when a segment of its path
 * is private (`_`-prefixed): the folder that holds that segment.
 */
export function privateOwner(file: string): string | undefined {
  const parts = file.split("/");
  const index = parts.findIndex((part) => part.startsWith("_"));
  return index === -1 ? undefined : parts.slice(0, index).join("/");
}

/** Every breach of the contract among `edges`, one readable line each. */
export function breaches(
  layers: Layer[],
  files: string[],
  edges: Edge[],
): string[] {
  const found: string[] = [];
  for (const file of files) {
    if (layerOf(layers, file) === undefined) {
      found.push(`${file}: no layer of ARCHITECTURE.md's table holds it`);
    }
  }
  for (const { from, to, line } of edges) {
    const source = layerOf(layers, from);
    const target = layerOf(layers, to);
    const where = `${from}:${line} imports ${to}`;
    if (source && target && source !== target) {
      if (!source.imports.includes(target.name)) {
        found.push(
          `${where}: layer "${source.name}" may not import layer "${target.name}"`,
        );
      }
    }
    const owner = privateOwner(to);
    if (owner !== undefined) {
      const inside = owner === ""
        ? !from.includes("/")
        : from.startsWith(owner + "/");
      if (!inside) {
        found.push(
          `${where}: a private name, for ${owner || "the root"}/ alone`,
        );
      }
    }
  }
  return found;
}

/** Where the layers' allowed imports run in a circle, if they do. */
export function circle(layers: Layer[]): string[] | undefined {
  const byName = new Map(layers.map((layer) => [layer.name, layer]));
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (name: string): string[] | undefined => {
    if (state.get(name) === "done") return undefined;
    if (state.get(name) === "open") {
      return [...path.slice(path.indexOf(name)), name];
    }
    state.set(name, "open");
    path.push(name);
    for (const next of byName.get(name)?.imports ?? []) {
      const found = visit(next);
      if (found) return found;
    }
    path.pop();
    state.set(name, "done");
    return undefined;
  };
  for (const layer of layers) {
    const found = visit(layer.name);
    if (found) return found;
  }
  return undefined;
}

const IMPORT =
  /(?:^|[\s;}])(?:import|export)\s(?:[^;'"`]*?\sfrom\s*)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** The relative imports of one module's source text. */
export function importsOf(
  file: string,
  text: string,
): Edge[] {
  // Doc comments hold example imports of the package: not this file's.
  const code = text.replace(
    /\/\*[\s\S]*?\*\//g,
    (comment) => comment.replace(/[^\n]/g, " "),
  ).replace(/\/\/[^\n]*/g, "");
  const edges: Edge[] = [];
  for (const match of code.matchAll(IMPORT)) {
    const specifier = match[1] ?? match[2]!;
    if (!specifier.startsWith(".")) continue;
    const to = normalize(join(dirname(file), specifier)).replaceAll("\\", "/");
    const start = match.index + match[0].search(/import|export/);
    const line = code.slice(0, start).split("\n").length;
    edges.push({ from: file, to, line });
  }
  return edges;
}

/**
 * The files of `src/util/` (by name, without `.ts`) that the picture's
 * `util/` list does not name: the list runs from the line that opens with
 * `util/` to the end of the picture.
 */
export function unlistedUtilities(
  markdown: string,
  files: readonly string[],
): string[] {
  const start = markdown.indexOf("util/ ");
  const end = markdown.indexOf("```", start);
  if (start === -1 || end === -1) return [...files];
  const listed = new Set(
    markdown.slice(start + "util/ ".length, end).match(/[a-z_]+/g) ?? [],
  );
  return files.filter((file) => !listed.has(file));
}

/** The package's source: the entries of `deno.json` and everything under `src/`. */
async function sourceFiles(): Promise<string[]> {
  const config = JSON.parse(await readFile(join(ROOT, "deno.json"), "utf8"));
  const entries = Object.values(config.exports as Record<string, string>)
    .map((path) => normalize(path).replaceAll("\\", "/"));
  const src = (await readdir(join(ROOT, "src"), { recursive: true }))
    .filter((path) => path.endsWith(".ts"))
    .map((path) => `src/${path.replaceAll("\\", "/")}`);
  return [...entries, ...src].sort();
}

describe("the import contract of ARCHITECTURE.md", () => {
  it(
    "holds: every import is one the table allows, and private names stay in their folder",
    { skip: !("Deno" in globalThis) },
    async () => {
      const layers = parseLayers(
        await readFile(join(ROOT, "ARCHITECTURE.md"), "utf8"),
      );
      assert.ok(layers.length >= 5, "the table names the layers");
      assert.equal(circle(layers), undefined, "the layers import downwards");
      const files = await sourceFiles();
      const edges: Edge[] = [];
      for (const file of files) {
        edges.push(
          ...importsOf(file, await readFile(join(ROOT, file), "utf8")),
        );
      }
      assert.ok(edges.length > 100, `${edges.length} imports found`);
      for (const { to, from, line } of edges) {
        assert.ok(
          files.includes(to),
          `${from}:${line} imports ${to}, which is not a source file`,
        );
      }
      assert.deepEqual(breaches(layers, files, edges), []);
    },
  );

  it(
    "names every file of src/util/ in the picture",
    { skip: !("Deno" in globalThis) },
    async () => {
      const markdown = await readFile(join(ROOT, "ARCHITECTURE.md"), "utf8");
      const utilities = (await readdir(join(ROOT, "src", "util")))
        .filter((name) => name.endsWith(".ts"))
        .map((name) => name.slice(0, -".ts".length));
      assert.ok(utilities.length > 10);
      assert.deepEqual(unlistedUtilities(markdown, utilities), []);
      assert.deepEqual(
        unlistedUtilities(markdown, [...utilities, "not_listed"]),
        ["not_listed"],
        "a file the list does not name is found",
      );
    },
  );

  it("finds a breach of each kind, so the check above can fail", () => {
    const layers = parseLayers([
      "## What each layer may import",
      "",
      "| layer | paths | may import |",
      "| --- | --- | --- |",
      "| top | `mod.ts`, `src/cli/` | `bottom` |",
      "| bottom | `src/util/` | |",
      "",
    ].join("\n"));
    assert.deepEqual(layers.map((layer) => layer.name), ["top", "bottom"]);
    const found = breaches(layers, [
      "mod.ts",
      "src/cli/run.ts",
      "src/util/a.ts",
      "src/stray.ts",
    ], [
      { from: "mod.ts", to: "src/util/a.ts", line: 1 },
      { from: "src/util/a.ts", to: "src/cli/run.ts", line: 2 },
      { from: "mod.ts", to: "src/cli/_parse.ts", line: 3 },
      { from: "src/cli/run.ts", to: "src/cli/_parse.ts", line: 4 },
    ]);
    assert.deepEqual(found, [
      "src/stray.ts: no layer of ARCHITECTURE.md's table holds it",
      'src/util/a.ts:2 imports src/cli/run.ts: layer "bottom" may not import layer "top"',
      "mod.ts:3 imports src/cli/_parse.ts: a private name, for src/cli/ alone",
    ]);
    assert.deepEqual(
      circle([
        { name: "a", paths: [], imports: ["b"] },
        { name: "b", paths: [], imports: ["a"] },
      ]),
      ["a", "b", "a"],
    );
  });

  it("reads imports of every form, and not those in comments", () => {
    const edges = importsOf(
      "src/a/b.ts",
      [
        'import { x } from "./x.ts";',
        'import type { Y } from "../y.ts";',
        'export * from "./z.ts";',
        "export {",
        "  w,",
        '} from "./w.ts";',
        'const lazy = await import("./lazy.ts");',
        'import "./side.ts";',
        '/** ```ts\n * import { MCPToolAdapter } from "./mod.ts";\n * ``` */',
        '// import { no } from "./no.ts";',
        'import { pkg } from "npm:pkg";',
      ].join("\n"),
    );
    assert.deepEqual(
      edges.map((edge) => `${edge.to}:${edge.line}`),
      [
        "src/a/x.ts:1",
        "src/y.ts:2",
        "src/a/z.ts:3",
        "src/a/w.ts:4",
        "src/a/lazy.ts:7",
        "src/a/side.ts:8",
      ],
    );
  });
});
