#!/usr/bin/env node
/**
 * The `mcp-adapter` executable: the npm package's `bin`, and
 * `deno run -A jsr:@cleveragents/mcp-adapter/bin …`. Running this module
 * runs the command line; the library API is the `/cli` entry, which runs
 * nothing when imported.
 *
 * @module
 */

import { main } from "./src/cli/main.ts";
import { runAsProgram } from "./src/cli/program.ts";

await runAsProgram(main, import.meta.url);
