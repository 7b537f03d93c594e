/**
 * `mcp-adapter check --pin FILE [--update]`: compares every server's tools
 * with the pins kept in FILE and prints the drift — tools added, removed
 * and changed, with the changed fields and a line diff of a changed
 * description — made safe for a terminal (everything shown comes from the
 * servers). Writes FILE on the first run, and with `--update`. Internal.
 *
 * @module
 */

import { readFile, rename, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { HubServerStatus } from "../hub.ts";
import type { PinnedTools } from "../tools/fingerprint.ts";
import { checkPins, type ToolChange, type ToolDrift } from "../tools/drift.ts";
import { errorMessage } from "../util/caught.ts";
import { isRecord, setOwn } from "../util/values.ts";
import { printable } from "../util/terminal.ts";
import type { CliOutput } from "./_output.ts";
import { writeJson } from "./_output.ts";
import type { Command, Context } from "./_context.ts";
import { CliError, CONNECTION, DRIFT, OK, USAGE } from "./_exit.ts";
import { withHub } from "./_hub.ts";

/** The pin file: each server's pins, by server name. */
interface PinFile {
  version: 1;
  servers: Record<string, PinnedTools>;
}

/** The most lines of a description the line diff compares; longer ones are shown whole. */
const MAX_DIFF_LINES = 400;

/** `check --pin FILE`: the drift of each server's tools from FILE's pins. */
export function pinCheckCommand(file: string, update: boolean): Command {
  return (ctx) =>
    withHub(ctx, async (hub, statuses) => {
      const path = resolve(ctx.cwd, file);
      const existing = await readPinFile(path);
      const servers: Record<string, PinnedTools> = {};
      for (const name of Object.keys(existing?.servers ?? {})) {
        setOwn(servers, name, existing!.servers[name]!);
      }
      const results: { status: HubServerStatus; drift?: ToolDrift }[] = [];
      for (const status of statuses) {
        const adapter = status.state === "connected"
          ? hub.adapter(status.name)
          : undefined;
        if (adapter === undefined) {
          results.push({ status });
          continue;
        }
        if (existing !== undefined) {
          const pins = Object.hasOwn(existing.servers, status.name)
            ? existing.servers[status.name]!
            : {};
          results.push({ status, drift: await adapter.compareTools(pins) });
        } else results.push({ status });
        if (existing === undefined || update) {
          setOwn(servers, status.name, await adapter.acceptToolChanges());
        }
      }
      const written = existing === undefined || update;
      if (written) await writePinFile(path, { version: 1, servers });
      const drifted = results.some(({ drift }) => drift && hasDrift(drift));
      if (ctx.json) {
        writeJson(ctx.stdout, {
          file: path,
          written,
          servers: results.map(({ status, drift }) =>
            drift ? { ...status, drift } : status
          ),
        }, { printable: true });
      } else {
        report(ctx, results, { path, file, existing: existing !== undefined });
        if (written) {
          const count = results.filter(({ status }) =>
            status.state === "connected"
          ).length;
          ctx.stdout.write(
            `${
              existing === undefined ? "Pinned" : "Accepted and pinned"
            } the tools of ${count} server${count === 1 ? "" : "s"} in ${
              printable(path)
            }.\n`,
          );
        } else if (drifted) {
          ctx.stderr.write(
            `mcp-adapter: the tools differ from their pins. Review the changes; to accept them, run: mcp-adapter check --pin ${
              printable(file)
            } --update\n`,
          );
        }
      }
      if (statuses.some((status) => status.state === "failed")) {
        return CONNECTION;
      }
      return drifted && !update ? DRIFT : OK;
    });
}

function hasDrift(drift: ToolDrift): boolean {
  return drift.added.length + drift.removed.length + drift.changed.length > 0;
}

/** The pin file, or `undefined` when there is none yet. */
async function readPinFile(path: string): Promise<PinFile | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return undefined;
    throw new CliError(
      USAGE,
      `cannot read the pin file ${path}: ${errorMessage(error)}`,
    );
  }
  const again = `fix it, or delete it to pin the tools as they are now`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(
      USAGE,
      `the pin file ${path} is not JSON (${errorMessage(error)}); ${again}`,
    );
  }
  if (
    !isRecord(value) || value.version !== 1 || !isRecord(value.servers)
  ) {
    throw new CliError(
      USAGE,
      `the pin file ${path} is not a pin file ({ "version": 1, "servers": { … } }); ${again}`,
    );
  }
  const servers: Record<string, PinnedTools> = {};
  for (const name of Object.keys(value.servers)) {
    try {
      setOwn(
        servers,
        name,
        checkPins(value.servers[name], `servers[${JSON.stringify(name)}]`),
      );
    } catch (error) {
      throw new CliError(
        USAGE,
        `the pin file ${path}: ${errorMessage(error)}; ${again}`,
      );
    }
  }
  return { version: 1, servers };
}

/** Writes the pin file whole, or not at all (a new file renamed over it). */
async function writePinFile(path: string, pins: PinFile): Promise<void> {
  const temporary = `${path}.${crypto.randomUUID()}.tmp`;
  try {
    await writeFile(temporary, `${JSON.stringify(pins, null, 2)}\n`);
    await rename(temporary, path);
  } catch (error) {
    throw new CliError(
      USAGE,
      `cannot write the pin file ${path}: ${errorMessage(error)}`,
    );
  }
}

/** The drift of each server, as text. */
function report(
  ctx: Context,
  results: readonly { status: HubServerStatus; drift?: ToolDrift }[],
  pinFile: { path: string; file: string; existing: boolean },
): void {
  const out = ctx.stdout;
  for (const { status, drift } of results) {
    const server = printable(status.name);
    if (status.state !== "connected") {
      ctx.stderr.write(
        `mcp-adapter: server "${server}" ${
          status.state === "disabled"
            ? "is disabled; its pins are kept"
            : `failed, its tools were not checked: ${
              printable(String(status.error))
            }`
        }\n`,
      );
      continue;
    }
    if (drift === undefined) continue;
    if (!hasDrift(drift)) {
      out.write(
        `${server}: no drift (${status.toolCount} tool${
          status.toolCount === 1 ? "" : "s"
        } match their pins)\n`,
      );
      continue;
    }
    out.write(
      `${server}: ${drift.changed.length} changed, ${drift.added.length} added, ${drift.removed.length} removed since pinned in ${
        printable(pinFile.file)
      }\n`,
    );
    for (const change of drift.changed) writeChange(out, change);
    for (const tool of drift.added) {
      out.write(
        `  added ${printable(tool.name)}${
          tool.tool?.description
            ? `: ${printable(firstLineOf(tool.tool.description))}`
            : ""
        }\n`,
      );
    }
    for (const tool of drift.removed) {
      out.write(`  removed ${printable(tool.name)}\n`);
    }
  }
}

function writeChange(out: CliOutput, change: ToolChange): void {
  out.write(
    `  changed ${printable(change.name)}${
      change.fields.length > 0 ? `: ${change.fields.join(", ")}` : ""
    }\n`,
  );
  const before = change.before.tool?.description;
  const after = change.after.tool?.description;
  for (const detail of change.details) {
    if (detail.startsWith("description:") && before !== undefined) continue;
    out.write(`    ${printable(detail)}\n`);
  }
  if (
    change.fields.includes("description") && before !== undefined &&
    after !== undefined
  ) {
    out.write("    description:\n");
    for (const [mark, line] of lineDiff(before, after)) {
      out.write(`      ${mark} ${printable(line)}\n`);
    }
  }
}

function firstLineOf(text: string): string {
  const line = text.split("\n", 1)[0]!;
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}

/**
 * The lines removed (`-`) and added (`+`) from `before` to `after`, in
 * order (a longest-common-subsequence diff); unchanged lines are left out.
 * Texts of many lines are shown whole, one after the other.
 */
function lineDiff(before: string, after: string): ["-" | "+", string][] {
  const a = before.split("\n");
  const b = after.split("\n");
  if (a.length > MAX_DIFF_LINES || b.length > MAX_DIFF_LINES) {
    return [
      ...a.map((line) => ["-", line] as ["-", string]),
      ...b.map((line) => ["+", line] as ["+", string]),
    ];
  }
  // lengths[i][j]: the longest common subsequence of a[i..] and b[j..].
  const lengths = Array.from(
    { length: a.length + 1 },
    () => new Array<number>(b.length + 1).fill(0),
  );
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i]![j] = a[i] === b[j]
        ? lengths[i + 1]![j + 1]! + 1
        : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
    }
  }
  const lines: ["-" | "+", string][] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      i++;
      j++;
    } else if (
      j >= b.length ||
      (i < a.length && lengths[i + 1]![j]! >= lengths[i]![j + 1]!)
    ) {
      lines.push(["-", a[i++]!]);
    } else {
      lines.push(["+", b[j++]!]);
    }
  }
  return lines;
}
