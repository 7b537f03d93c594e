/**
 * Internal: a problem found in a server config, or in a config or skill
 * document, before it is turned into a public `MCPConfigError` or an
 * `MCPConfigFileError` that names the file.
 *
 * @module
 */

/** Where a value sits in a document: keys and list indexes from the root. */
export type Path = readonly (string | number)[];

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** A problem at a path of a document, with its position when known. */
export class ConfigProblem extends Error {
  /** Where the problem is; `[]` for the whole document. */
  readonly path: Path;
  /** What is wrong and what to write, without the file or the path. */
  readonly detail: string;
  /** Whether `detail` continues a sentence that starts with the path (`x uses ${Y}`). */
  readonly continuesPath: boolean;
  /** `missing` and `unknown` field problems: a typo causes one of each. */
  readonly kind?: "missing" | "unknown";
  /**
   * `missing`: the field that is missing, when one is named. `unknown`: the
   * known field it looks like a misspelling of, if any.
   */
  readonly field?: string;
  /** 1-based line, when known. */
  line?: number;
  /** 1-based column, when known. */
  column?: number;

  /**
   * Creates a problem.
   *
   * @param path Where the problem is.
   * @param detail What is wrong and what to write.
   * @param options Position, whether `detail` continues the path, the cause.
   */
  constructor(
    path: Path,
    detail: string,
    options: {
      line?: number;
      column?: number;
      continuesPath?: boolean;
      cause?: unknown;
      kind?: "missing" | "unknown";
      field?: string;
    } = {},
  ) {
    super(
      detail,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = "ConfigProblem";
    this.path = path;
    this.detail = detail;
    this.continuesPath = options.continuesPath ?? false;
    if (options.kind !== undefined) this.kind = options.kind;
    if (options.field !== undefined) this.field = options.field;
    if (options.line !== undefined) this.line = options.line;
    if (options.column !== undefined) this.column = options.column;
  }
}

/**
 * Renders a path the way people write it in code: `servers[2].url`,
 * `mcpServers.github.headers.Authorization`, `overrides["notes/*"]`.
 *
 * @param path The path.
 * @returns The rendering; `""` for the root.
 */
export function formatPath(path: Path): string {
  let text = "";
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) {
      text += text === "" ? segment : `.${segment}`;
    } else text += `[${JSON.stringify(segment)}]`;
  }
  return text;
}

/**
 * Whether `path` is `parent` or lies under it.
 *
 * @param path A path.
 * @param parent Another.
 */
export function within(path: Path, parent: Path): boolean {
  return parent.every((segment, index) => path[index] === segment);
}
