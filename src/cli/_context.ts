/**
 * What a command runs with once its command line is checked and its config
 * loaded, and the shape of a command ready to run. Types only. Internal.
 *
 * @module
 */

import type { CliOutput } from "./_output.ts";
import type { ServerEntry } from "../config/types.ts";
import type { MCPToolAdapterOptions } from "../adapter/adapter.ts";

/** One run of a command: where to print, what cancels it, the servers of the config. */
export interface Context {
  stdout: CliOutput;
  stderr: CliOutput;
  signal: AbortSignal | undefined;
  /** `--json`: print JSON instead of text. */
  json: boolean;
  /** `--verbose`: print the servers' log messages to stderr. */
  verbose: boolean;
  /** The servers, in config order. */
  servers: readonly ServerEntry[];
  /** What every adapter gets: handlers for server requests, stderr passthrough. */
  adapterOptions: Omit<MCPToolAdapterOptions, "transport">;
  /** The OAuth token store's file (`login` writes it; servers with `auth: oauth` use it). */
  tokens: string;
  /** What relative paths of the command line are relative to. */
  cwd: string;
}

/** A command ready to run; resolves to the exit code. */
export type Command = (ctx: Context) => Promise<number>;
