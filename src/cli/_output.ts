/**
 * How the command line prints: tool results, JSON, tables and the progress
 * bar. Internal.
 *
 * @module
 */

import type {
  MCPCallResult,
  MCPContentBlock,
  MCPLogLevel,
  MCPProgress,
  MCPTaskStatus,
} from "../types.ts";
import { printable, printableJson, printableText } from "../util/terminal.ts";
import { asText, unlessTooDeep } from "../util/values.ts";
import { CliError, TOOL_ERROR } from "./_exit.ts";

/** What is printed instead of a server's data nested too deeply to write (see `unlessTooDeep`). */
function tooDeep(what: string): string {
  return `[${what} nests too many levels of objects and lists to be printed]`;
}

const BAR_WIDTH = 24;

/** Where the command line writes: `process.stdout` / `process.stderr` or a test double. */
export interface CliOutput {
  /** Writes text as is (no newline added). */
  write(text: string): unknown;
  /** Whether this is a terminal; the progress bar is drawn only on one. */
  isTTY?: boolean;
  /** The terminal's width in columns, when known. */
  columns?: number;
}

/**
 * A tool's result, each content block once: text as is; images, audio and
 * resources as a one-line summary (or the file they were saved to, from
 * `saved`). Structured content is printed, as JSON, only when there is no
 * content to show it in: servers put the same data in both. What the server
 * sent is made printable (see `printableText`): a result cannot move the
 * cursor, rewrite a line or set the clipboard.
 */
export function writeResult(
  out: CliOutput,
  data: MCPCallResult,
  saved: ReadonlyMap<number, string> = new Map(),
): void {
  const content = Array.isArray(data.content) ? data.content : [];
  content.forEach((block, index) => {
    const file = saved.get(index);
    if (block?.type === "text" && typeof block.text === "string") {
      const text = printableText(block.text);
      out.write(text.endsWith("\n") ? text : `${text}\n`);
    } else if (file !== undefined) {
      out.write(`[${printable(block.type)} saved to ${printable(file)}]\n`);
    } else if (block?.type === "image" || block?.type === "audio") {
      const size = typeof block.data === "string"
        ? ` ${Math.floor(block.data.length * 3 / 4)} bytes`
        : "";
      out.write(
        `[${block.type} ${
          printable(asText(block.mimeType))
        }${size}; --output DIR saves it]\n`,
      );
    } else if (block?.type === "resource_link") {
      out.write(`[resource link ${printable(asText(block.uri))}]\n`);
    } else if (block?.type === "resource") {
      const resource = block.resource;
      out.write(
        typeof resource?.text === "string"
          ? `${printableText(resource.text)}\n`
          : `[resource ${
            printable(asText(resource?.uri))
          }; --output DIR saves it]\n`,
      );
    } else {
      out.write(
        `${
          unlessTooDeep(() => printableJson(block)) ??
            tooDeep(`${printable(asText(block?.type) || "untyped")} block`)
        }\n`,
      );
    }
  });
  const structured = data.structuredContent;
  if (content.length === 0 && structured !== undefined) {
    out.write(
      `${
        unlessTooDeep(() => printableJson(structured, 2)) ??
          tooDeep("structured content")
      }\n`,
    );
  }
}

/** The text of the first text block, exactly, without a newline added. */
export function writeRaw(out: CliOutput, data: MCPCallResult): boolean {
  const block = (data.content ?? []).find((item) => item?.type === "text");
  if (block?.type !== "text") return false;
  out.write(block.text);
  return true;
}

/** A binary content block: its bytes (base64) and a file name extension. */
export function binaryOf(
  block: MCPContentBlock,
): { base64: string; extension: string } | undefined {
  if (block.type === "image" || block.type === "audio") {
    return { base64: block.data, extension: extensionOf(block.mimeType) };
  }
  if (block.type === "resource" && typeof block.resource.blob === "string") {
    return {
      base64: block.resource.blob,
      extension: extensionOf(block.resource.mimeType),
    };
  }
  return undefined;
}

const EXTENSIONS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
  "image/svg+xml": "svg",
  "audio/wav": "wav",
  "audio/x-wav": "wav",
  "audio/mpeg": "mp3",
  "audio/ogg": "ogg",
  "application/pdf": "pdf",
};

function extensionOf(mimeType: string | undefined): string {
  return (mimeType && EXTENSIONS[mimeType.toLowerCase()]) ?? "bin";
}

/**
 * `value` as indented JSON and a newline, exactly as JSON.stringify writes
 * it (`--json`); with `printable`, the control and bidirectional characters
 * it leaves raw are `\u` escapes instead (the same value, safe on a terminal).
 *
 * @throws {CliError} When `value` (a server's data) nests too deeply for
 * JSON.stringify.
 */
export function writeJson(
  out: CliOutput,
  value: unknown,
  options: { printable?: boolean } = {},
): void {
  const text = unlessTooDeep(() =>
    options.printable ? printableJson(value, 2) : JSON.stringify(value, null, 2)
  );
  if (text === undefined) {
    throw new CliError(
      TOOL_ERROR,
      "The server's answer nests too many levels of objects and lists to be printed as JSON; run the command without --json to see its text",
    );
  }
  out.write(`${text}\n`);
}

/**
 * Left-aligned columns; the last one is cut to the terminal's width. Each
 * cell is made printable first (see `printable`): names and descriptions
 * come from servers.
 */
export function writeTable(
  out: CliOutput,
  header: readonly string[],
  rows: readonly string[][],
): void {
  const all = [header, ...rows].map((row) => row.map(printable));
  const widths = header.map((_, column) =>
    Math.max(...all.map((row) => (row[column] ?? "").length))
  );
  for (const row of all) {
    let line = row.map((cell, column) =>
      column === row.length - 1 ? cell : cell.padEnd(widths[column]!)
    ).join("  ").trimEnd();
    if (out.isTTY && out.columns && line.length > out.columns) {
      line = `${line.slice(0, out.columns - 1)}…`;
    }
    out.write(`${line}\n`);
  }
}

/** The first line of `text`, trimmed. */
export function firstLine(text: string): string {
  return text.split("\n", 1)[0]!.trim();
}

/** One server log message as a line, made printable: `[server] level logger: data`. */
export function writeLog(
  out: CliOutput,
  level: MCPLogLevel,
  logger: string | undefined,
  data: unknown,
  server: string,
): void {
  const text = typeof data === "string"
    ? data
    : unlessTooDeep(() => JSON.stringify(data) ?? "") ?? tooDeep("data");
  out.write(
    `${
      printable(`[${server}] ${level}${logger ? ` ${logger}` : ""}: ${text}`)
    }\n`,
  );
}

/**
 * A one-line progress bar redrawn in place with `\r`; for a tool running
 * as a task, the task's status follows the bar.
 */
export class ProgressBar {
  #out: CliOutput;
  #drawn = false;
  #progress: MCPProgress | undefined;
  #status = "";

  constructor(out: CliOutput) {
    this.#out = out;
  }

  /** Shows a task's status (and message) beside the progress. */
  status({ status, statusMessage }: MCPTaskStatus): void {
    this.#status = `task ${status}${statusMessage ? `: ${statusMessage}` : ""}`;
    this.#render();
  }

  draw(progress: MCPProgress): void {
    this.#progress = progress;
    this.#render();
  }

  #render(): void {
    const report = this.#progress;
    let line = report === undefined ? "" : progressLine(report);
    if (this.#status) line += `${line ? " " : ""}[${this.#status}]`;
    // The message and status come from the server.
    line = printable(line);
    // A pseudo-terminal without a size reports 0 columns.
    const width = (this.#out.columns || 80) - 1;
    if (line.length > width) line = line.slice(0, width);
    this.#out.write(`\r${line}\x1b[K`);
    this.#drawn = true;
  }

  clear(): void {
    if (this.#drawn) this.#out.write("\r\x1b[K");
    this.#drawn = false;
  }
}

function progressLine({ progress, total, message }: MCPProgress): string {
  let line: string;
  if (total !== undefined && total > 0) {
    const ratio = Math.min(1, Math.max(0, progress / total));
    const filled = Math.round(ratio * BAR_WIDTH);
    line = `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${
      Math.round(ratio * 100)
    }% ${progress}/${total}`;
  } else {
    line = `progress ${progress}`;
  }
  return message ? `${line} ${message}` : line;
}
