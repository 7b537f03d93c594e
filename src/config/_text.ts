/**
 * Internal: config and skill text into values. YAML through js-yaml (core
 * schema: no dates, no YAML 1.1 `yes`/`no` booleans; `<<` merge keys), JSON through
 * Microsoft's `jsonc-parser` (the one VS Code uses: comments and trailing
 * commas allowed), whose syntax tree also gives the position of every
 * value. Syntax errors carry a line and column and never quote the text: it
 * may hold secrets.
 *
 * Positions of YAML values are found only when a problem needs one, from
 * js-yaml's event stream.
 *
 * Nothing is nested more than {@linkcode MAX_DEPTH} levels deep, in either
 * format and at any depth: JSON's brackets are counted before it is parsed
 * (`jsonc-parser` recurses per level and overflows the stack on deep text);
 * js-yaml counts its own depth as it parses, and YAML's aliases, which can
 * nest a value deeper than the text does, are measured on the loaded value.
 *
 * @module
 */

import { setOwn } from "../util/values.ts";
import {
  COLLECTION_STYLE,
  CORE_SCHEMA,
  type Event,
  EVENT_ID,
  getScalarValue,
  load,
  mergeTag,
  parseEvents,
  SCALAR_STYLE,
  YAMLException,
} from "js-yaml";
import * as jsoncModule from "jsonc-parser";
import type { Node, ParseError } from "jsonc-parser";
import { ConfigProblem, type Path } from "../util/problem.ts";
import { MAX_DEPTH, TOO_DEEP, tooDeepJson, tooDeepPath } from "./_depth.ts";

/** The two text formats. */
export type TextFormat = "yaml" | "json";

/** A 1-based line and column. */
export interface Position {
  /** 1-based line. */
  line: number;
  /** 1-based column. */
  column: number;
}

/** A parsed document. */
export interface ParsedDocument {
  /** `true` when the text holds nothing but whitespace and comments. */
  empty: boolean;
  /** The parsed value; `undefined` when `empty`. */
  value: unknown;
  /**
   * The position of the value at `path` (of its key, inside a mapping), or of
   * the nearest enclosing value whose position is known.
   */
  locate(path: Path): Position | undefined;
}

// YAML 1.2 core types plus `<<` merge keys, for entries that share fields.
const YAML_SCHEMA = CORE_SCHEMA.withTags(mergeTag);
/**
 * js-yaml's own limit: above ours, since it counts a level or two more than
 * the value has; a document it refuses is deeper than ours allows anyway.
 */
const YAML_PARSER_DEPTH = MAX_DEPTH + 10;
const YAML_OPTIONS = { schema: YAML_SCHEMA, maxDepth: YAML_PARSER_DEPTH };
const BLANK_YAML = /^(?:[ \t\r\uFEFF]*(?:#[^\n]*)?\n)*[ \t\r\uFEFF]*(?:#.*)?$/;

/**
 * Parses YAML or JSON text.
 *
 * @param text The text.
 * @param format Its format.
 * @returns The value and a locator.
 * @throws {ConfigProblem} On a syntax error, with path `[]` and the line and
 * column when known.
 */
export function parseDocument(
  text: string,
  format: TextFormat,
): ParsedDocument {
  if (format === "json") return parseJson(text);
  if (BLANK_YAML.test(text)) return emptyDocument();
  let value: unknown;
  try {
    value = load(text, YAML_OPTIONS);
  } catch (error) {
    if (error instanceof YAMLException) {
      const mark = error.mark;
      throw new ConfigProblem(
        [],
        error.reason === `nesting exceeded maxDepth (${YAML_PARSER_DEPTH})`
          ? TOO_DEEP
          : error.reason,
        mark ? { line: mark.line + 1, column: mark.column + 1 } : {},
      );
    }
    throw new ConfigProblem(
      [],
      `could not be parsed as YAML (${
        error instanceof Error ? error.name : "unknown error"
      })`,
    );
  }
  const locate = lazyLocator(text);
  const deep = tooDeepPath(value);
  if (deep !== undefined) {
    throw new ConfigProblem([], TOO_DEEP, locate(deep) ?? {});
  }
  return { empty: false, value, locate };
}

/**
 * Converts an offset into a 1-based line and column.
 *
 * @param text The text.
 * @param offset A UTF-16 offset into it.
 * @returns The position.
 */
export function positionAt(text: string, offset: number): Position {
  let line = 1;
  let lineStart = 0;
  for (let index = text.indexOf("\n"); index !== -1 && index < offset;) {
    line++;
    lineStart = index + 1;
    index = text.indexOf("\n", lineStart);
  }
  return { line, column: offset - lineStart + 1 };
}

function emptyDocument(): ParsedDocument {
  return { empty: true, value: undefined, locate: () => undefined };
}

// jsonc-parser ships a UMD main and an ESM build whose imports lack file
// extensions. Node loads the UMD one (named exports, and a default),
// bundlers the ESM one (named exports only): take whichever is there.
const jsonc: typeof jsoncModule =
  (jsoncModule as unknown as { default?: typeof jsoncModule }).default ??
    jsoncModule;
function parseJson(text: string): ParsedDocument {
  const source = text.charCodeAt(0) === 0xfeff ? ` ${text.slice(1)}` : text;
  const deep = tooDeepJson(source);
  if (deep !== undefined) {
    throw new ConfigProblem([], TOO_DEEP, positionAt(source, deep));
  }
  const errors: ParseError[] = [];
  const root = jsonc.parseTree(source, errors, {
    allowTrailingComma: true,
    allowEmptyContent: true,
  });
  const [error] = errors;
  if (error !== undefined) {
    // A bad escape is reported at its string; point at the backslash.
    const backslash = source.indexOf("\\", error.offset);
    const offset = jsonc.printParseErrorCode(error.error) ===
          "InvalidEscapeCharacter" &&
        backslash !== -1 &&
        backslash < error.offset + error.length
      ? backslash
      : error.offset;
    throw new ConfigProblem(
      [],
      jsonSyntaxMessage(source, error, root),
      positionAt(source, offset),
    );
  }
  if (root === undefined) return emptyDocument();
  return {
    empty: false,
    value: jsonValue(source, root, 0),
    locate: (path) => {
      for (let length = path.length; length >= 0; length--) {
        const node = jsonc.findNodeAtLocation(root, [...path.slice(0, length)]);
        if (node === undefined) continue;
        // Inside an object, point at the key.
        const at = node.parent?.type === "property" ? node.parent : node;
        return positionAt(source, at.offset);
      }
      return undefined;
    },
  };
}

/** A node's value; objects get own properties (even `__proto__`), duplicate keys are errors. */
function jsonValue(text: string, node: Node, depth: number): unknown {
  if (depth > MAX_DEPTH) {
    throw new ConfigProblem([], TOO_DEEP, positionAt(text, node.offset));
  }
  switch (node.type) {
    case "object": {
      const object: Record<string, unknown> = {};
      for (const property of node.children ?? []) {
        const [key, value] = property.children ?? [];
        const name = key?.value as string;
        if (Object.hasOwn(object, name)) {
          throw new ConfigProblem(
            [],
            `duplicated key ${JSON.stringify(name)}`,
            positionAt(text, key!.offset),
          );
        }
        setOwn(
          object,
          name,
          value === undefined ? null : jsonValue(text, value, depth + 1),
        );
      }
      return object;
    }
    case "array":
      return (node.children ?? []).map((item) =>
        jsonValue(text, item, depth + 1)
      );
    default:
      return node.value;
  }
}

/** What a syntax error means, in words that never quote the text. */
function jsonSyntaxMessage(
  text: string,
  error: ParseError,
  root: Node | undefined,
): string {
  const char = text[error.offset];
  if (error.offset >= text.trimEnd().length) {
    return "unexpected end of the file; a value is missing";
  }
  if (root !== undefined && error.offset >= root.offset + root.length) {
    return "unexpected text after the end of the JSON value";
  }
  switch (jsonc.printParseErrorCode(error.error)) {
    case "UnexpectedEndOfString":
      return "unterminated string; close it with a double quote";
    case "UnexpectedEndOfComment":
      return 'unclosed "/*" comment; close it with "*/"';
    case "InvalidEscapeCharacter":
    case "InvalidUnicode":
      return 'invalid escape in a string; write "\\\\" for a backslash';
    case "InvalidNumberFormat":
    case "UnexpectedEndOfNumber":
      return "invalid number";
    case "PropertyNameExpected":
      return "expected a key in double quotes";
    case "ColonExpected":
      return 'expected ":" after the key';
    case "CommaExpected": {
      const inList =
        typeof jsonc.getLocation(text, error.offset).path.at(-1) === "number";
      return `expected "," or "${inList ? "]" : "}"}" after a value`;
    }
    case "CloseBraceExpected":
      return 'expected "," or "}"';
    case "CloseBracketExpected":
      return 'expected "," or "]"';
  }
  if (char === "'") {
    return text.lastIndexOf("{", error.offset) >
        text.lastIndexOf(":", error.offset)
      ? "expected a key in double quotes"
      : 'strings must be in double quotes ("), not single';
  }
  if (char === "-" || (char !== undefined && char >= "0" && char <= "9")) {
    return "invalid number";
  }
  return 'expected a value: a string in double quotes, a number, true, false, null, an object or a list (quote text with ")';
}

function lazyLocator(text: string): (path: Path) => Position | undefined {
  let offsets: Map<string, number> | undefined;
  return (path) => {
    offsets ??= indexOffsets(text);
    for (let length = path.length; length >= 0; length--) {
      const offset = offsets.get(JSON.stringify(path.slice(0, length)));
      if (offset !== undefined) return positionAt(text, offset);
    }
    return undefined;
  };
}

interface Frame {
  mapping: boolean;
  /** Where a block sequence starts (its first dash); -1 for other collections. */
  dash: number;
  /** `null` inside a complex key or under one, whose contents have no path. */
  path: (string | number)[] | null;
  index: number;
  expectKey: boolean;
  key: string | undefined;
  keyOffset: number;
}

/**
 * Maps each value's path (JSON-encoded) to the offset of its key, or of the
 * value itself for list items. Empty when the text cannot be walked.
 */
function indexOffsets(text: string): Map<string, number> {
  const offsets = new Map<string, number>();
  let events: Event[];
  try {
    events = parseEvents(text, { maxDepth: YAML_PARSER_DEPTH });
  } catch {
    return offsets;
  }
  const stack: Frame[] = [];
  let documents = 0;
  // Where the text read so far ends: an empty list item is the next dash.
  let end = 0;
  for (const event of events) {
    if (event.type === EVENT_ID.DOCUMENT) {
      if (++documents > 1) break;
      continue;
    }
    if (event.type === EVENT_ID.POP) {
      stack.pop();
      continue;
    }
    const offset = nodeOffset(event);
    const top = stack.at(-1);
    let path: (string | number)[] | null;
    let at = offset;
    if (top === undefined) path = [];
    else if (top.mapping && top.expectKey) {
      top.expectKey = false;
      top.key = event.type === EVENT_ID.SCALAR
        ? getScalarValue(text, event)
        : undefined;
      top.keyOffset = offset;
      path = null;
    } else if (top.mapping) {
      top.expectKey = true;
      path = top.path === null || top.key === undefined
        ? null
        : [...top.path, top.key];
      at = top.keyOffset;
    } else {
      path = top.path === null ? null : [...top.path, top.index];
      if (at < 0 && top.dash >= 0) {
        at = top.index === 0 ? top.dash : nextDash(text, end);
      }
      top.index++;
    }
    if (path !== null && at >= 0) offsets.set(JSON.stringify(path), at);
    end = Math.max(end, endOf(event));
    if (event.type === EVENT_ID.MAPPING || event.type === EVENT_ID.SEQUENCE) {
      stack.push({
        mapping: event.type === EVENT_ID.MAPPING,
        dash: event.type === EVENT_ID.SEQUENCE &&
            event.style === COLLECTION_STYLE.BLOCK
          ? event.start
          : -1,
        path,
        index: 0,
        expectKey: true,
        key: undefined,
        keyOffset: -1,
      });
    }
  }
  return offsets;
}

/** Where an event's text ends, as far as it is known. */
function endOf(event: Event): number {
  switch (event.type) {
    case EVENT_ID.MAPPING:
    case EVENT_ID.SEQUENCE:
      return event.start + 1;
    case EVENT_ID.SCALAR:
      return event.valueEnd;
    case EVENT_ID.ALIAS:
      return event.anchorEnd;
    default:
      return 0;
  }
}

/** The offset of the first list dash that starts a line after `from`; -1 when none. */
function nextDash(text: string, from: number): number {
  const dash = /^[ \t]*-(?=[ \t\r\n]|$)/gm;
  dash.lastIndex = from;
  const match = dash.exec(text);
  return match === null ? -1 : match.index + match[0].length - 1;
}

function nodeOffset(event: Event): number {
  switch (event.type) {
    case EVENT_ID.MAPPING:
    case EVENT_ID.SEQUENCE:
      return event.start;
    case EVENT_ID.SCALAR:
      // Point at the opening quote of a quoted scalar, not inside it.
      return event.style === SCALAR_STYLE.SINGLE_QUOTED ||
          event.style === SCALAR_STYLE.DOUBLE_QUOTED
        ? event.valueStart - 1
        : event.valueStart;
    case EVENT_ID.ALIAS:
      return event.anchorStart > 0 ? event.anchorStart - 1 : -1;
    default:
      return -1;
  }
}
