/**
 * `mcp-adapter search "<request>"`: the tools of the config's servers that
 * best match a request, with their scores, from the hub's tool catalog and
 * its built-in ranker. Internal.
 *
 * @module
 */

import { toolCatalog } from "../search/catalog.ts";
import { printableText } from "../util/terminal.ts";
import { reportFailures } from "./_commands.ts";
import type { Command } from "./_context.ts";
import { CONNECTION, OK } from "./_exit.ts";
import { withHub } from "./_hub.ts";
import { firstLine, writeJson, writeTable } from "./_output.ts";

/** `search`: ranks every enabled server's tools for `request`. */
export function searchCommand(request: string, k: number): Command {
  return async (ctx) =>
    await withHub(ctx, async (hub, statuses) => {
      const failed = reportFailures(ctx, statuses);
      const hits = await toolCatalog(hub).search(request, { k });
      if (ctx.json) {
        writeJson(
          ctx.stdout,
          hits.map(({ name, alias, namespace, score, tool }) => ({
            name,
            alias,
            server: tool.sourceMetadata.server,
            namespace,
            score,
            readOnly: tool.capability.readOnly,
            writes: tool.capability.writes,
            description: tool.description,
          })),
        );
      } else if (hits.length === 0) {
        ctx.stdout.write(
          `No tool matches ${JSON.stringify(printableText(request))}.\n`,
        );
      } else {
        writeTable(
          ctx.stdout,
          ["SCORE", "TOOL", "SERVER", "DESCRIPTION"],
          hits.map(({ name, score, tool }) => [
            score.toFixed(2),
            name,
            tool.sourceMetadata.server,
            firstLine(tool.description),
          ]),
        );
      }
      return failed ? CONNECTION : OK;
    });
}
