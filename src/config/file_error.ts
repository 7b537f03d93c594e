/**
 * `MCPConfigFileError`: a config or skill file is unreadable or invalid.
 *
 * @module
 */

import { MCPConfigError } from "../errors.ts";

/** One problem of a config or skill file. */
export interface MCPConfigFileProblem {
  /** The offending field, e.g. `"servers[2].url"`; `""` for the whole file. */
  path: string;
  /** 1-based line, when known. */
  line?: number;
  /** 1-based column, when known. */
  column?: number;
  /**
   * The whole line of the report, e.g.
   * `mcp.yaml:7:5: servers[2].url: expected an http(s) URL; write e.g. "https://example.com/mcp"`.
   */
  message: string;
}

/** Where in which file an {@linkcode MCPConfigFileError} happened. */
export interface MCPConfigFileErrorOptions {
  /** The file's path as given, or `"<inline>"` for text without one. */
  file: string;
  /** The offending field, e.g. `"servers[2].url"`; `""` for the whole file. */
  path: string;
  /** 1-based line, when known. */
  line?: number;
  /** 1-based column, when known. */
  column?: number;
  /** The underlying error, if any. */
  cause?: unknown;
  /**
   * Every problem found, in file order, the first being the one `path`,
   * `line` and `column` describe. Default: that one alone, with `message`.
   */
  problems?: readonly MCPConfigFileProblem[];
}

/**
 * A config or skill file cannot be read, does not parse, or holds invalid
 * values. Every problem found is reported at once, one line each, in file
 * order: the file (and line and column when known), then the path of the
 * field, then what to write instead, e.g.
 * `mcp.yaml:7:5: servers[2].url: expected an http(s) URL; write e.g. "https://example.com/mcp"`.
 * The same lines are in {@linkcode MCPConfigFileError.prototype.problems},
 * with their paths and positions; `path`, `line` and `column` are those of
 * the first. The message never contains the values of environment
 * variables, inputs, `env` or `headers`. `code` is `"invalid_config"`, as
 * for every {@linkcode MCPConfigError}; `field` equals `path`.
 *
 * @example Report a bad config file
 * ```ts
 * import { MCPConfigFileError, parseConfig } from "@cleveragents/mcp-adapter/config";
 *
 * try {
 *   parseConfig(
 *     "servers:\n  - name: files\n  - name: web\n    transport: sse\n    url: ftp://x\n",
 *     "yaml",
 *     { source: "mcp.yaml" },
 *   );
 * } catch (error) {
 *   if (!(error instanceof MCPConfigFileError)) throw error;
 *   console.log(error.file, error.path, error.line); // "mcp.yaml" "servers[0]" 2
 *   console.log(error.message);
 *   // mcp.yaml:2:5: servers[0]: missing "transport"; write e.g. transport: "stdio"
 *   // mcp.yaml:5:5: servers[1].url: expected an http(s) URL; write e.g. "https://example.com/mcp"
 *   console.log(error.problems.map((problem) => problem.path)); // ["servers[0]", "servers[1].url"]
 * }
 * ```
 */
export class MCPConfigFileError extends MCPConfigError {
  /** The file's path as given, or `"<inline>"`. */
  readonly file: string;
  /** The offending field, e.g. `"servers[2].url"`; `""` for the whole file. */
  readonly path: string;
  /** 1-based line, when known. */
  readonly line?: number;
  /** 1-based column, when known. */
  readonly column?: number;
  /** Every problem found, in file order; at least one. */
  readonly problems: readonly MCPConfigFileProblem[];

  /**
   * Creates a config file error.
   *
   * @param message The whole message, starting with the file.
   * @param options The file, the path, the position, the cause, and every
   * problem when there are several.
   */
  constructor(message: string, options: MCPConfigFileErrorOptions) {
    super(options.path, message);
    this.name = "MCPConfigFileError";
    this.file = options.file;
    this.path = options.path;
    if (options.line !== undefined) this.line = options.line;
    if (options.column !== undefined) this.column = options.column;
    this.problems = options.problems?.length ? [...options.problems] : [{
      path: options.path,
      ...(options.line === undefined ? {} : { line: options.line }),
      ...(options.column === undefined ? {} : { column: options.column }),
      message,
    }];
    if (options.cause !== undefined) {
      // MCPConfigError takes no options, so `cause` is set here.
      Object.defineProperty(this, "cause", {
        value: options.cause,
        writable: true,
        configurable: true,
        enumerable: false,
      });
    }
  }
}
