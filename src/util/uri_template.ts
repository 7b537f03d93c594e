/**
 * URI templates (RFC 6570, level 4) as MCP resource templates use them:
 * one parse that gives the variables, checks the values given against
 * them and expands them, then a check that the expansion kept the scheme
 * and host the template spells.
 *
 * Written here rather than taken from npm: the maintained expanders
 * (`url-template`, `@std-uritemplate/std-uritemplate`) expand but do not
 * say which variables a template has or where each one sits, and checking
 * with a second parser of our own would let the two disagree on what a
 * template means. One parse decides both. Internal.
 *
 * @module
 */

import { MCPAdapterError } from "../errors.ts";

/** The longest template, and the longest expansion, in characters. */
export const MAX_URI_CHARS = 8192;
/** The most expressions a template may have. */
const MAX_EXPRESSIONS = 64;
/** The longest value of one variable (each item of a list), in characters. */
const MAX_VALUE_CHARS = 4096;

/** What a variable may be given: a string, or a list of strings. */
export type UriTemplateValue = string | readonly string[];

/** One `{...}` of a template. */
interface Expression {
  operator: Operator;
  specs: { name: string; explode: boolean; prefix: number | undefined }[];
}

/** How an operator expands (RFC 6570, appendix A). */
interface Operator {
  first: string;
  separator: string;
  named: boolean;
  ifEmpty: string;
  /** Reserved characters pass unencoded (`+`, `#`). */
  reserved: boolean;
  /** Its variables may be left out (`?`, `&`: query parameters). */
  optional: boolean;
}

function operator(
  first: string,
  separator: string,
  named: boolean,
  ifEmpty: string,
  reserved: boolean,
): Operator {
  return {
    first,
    separator,
    named,
    ifEmpty,
    reserved,
    optional: first === "?" || first === "&",
  };
}

const OPERATORS: Record<string, Operator> = {
  "": operator("", ",", false, "", false),
  "+": operator("", ",", false, "", true),
  "#": operator("#", ",", false, "", true),
  ".": operator(".", ".", false, "", false),
  "/": operator("/", "/", false, "", false),
  ";": operator(";", ";", true, "", false),
  "?": operator("?", "&", true, "=", false),
  "&": operator("&", "&", true, "=", false),
};

const VARSPEC =
  /^((?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*)(?::([1-9][0-9]{0,3})|(\*))?$/;
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
/** Half a UTF-16 pair: no UTF-8 to percent-encode. */
const LONE_SURROGATE =
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Characters a literal may not hold (RFC 6570 2.1): controls, space, `"'<>\^`{|}`. */
// deno-lint-ignore no-control-regex
const BAD_LITERAL = /[\u0000-\u0020\u007f"'<>\\^`{|}]/;

/** A parsed template: its text, its variables, and how to expand it. */
export class UriTemplate {
  /** The template as given. */
  readonly template: string;
  /** Its variable names, in order of first appearance. */
  readonly variables: readonly string[];
  /** The variables that may be left out: those of `{?…}` and `{&…}` only. */
  readonly optional: ReadonlySet<string>;
  readonly #parts: (string | Expression)[];
  /** The scheme the template spells, lower-cased. */
  readonly #scheme: string;
  /** The authority as a pattern (its expressions hold host characters only), or `undefined` for none. */
  readonly #authority: RegExp | undefined;

  /**
   * Parses a template.
   *
   * @param template E.g. `file:///{path}` or `demo://resource/{id}{?page}`.
   * @throws {MCPAdapterError} `invalid_argument` when it is not an RFC 6570
   * template of at most 8192 characters that starts with a literal scheme.
   */
  constructor(template: string) {
    const bad = (why: string) =>
      new MCPAdapterError(
        "invalid_argument",
        `The URI template ${quote(template)} ${why}`,
      );
    if (typeof template !== "string" || template.length > MAX_URI_CHARS) {
      throw bad(`is not a string of at most ${MAX_URI_CHARS} characters`);
    }
    this.template = template;
    const parts: (string | Expression)[] = [];
    const variables: string[] = [];
    const optional = new Set<string>();
    const required = new Set<string>();
    let at = 0;
    let expressions = 0;
    while (at < template.length) {
      const open = template.indexOf("{", at);
      const literal = template.slice(at, open === -1 ? undefined : open);
      if (BAD_LITERAL.test(literal)) {
        throw bad(
          `holds a character a URI template may not (a control, a space, or one of "'<>\\^\`|}) outside {...}`,
        );
      }
      if (literal !== "") parts.push(literal);
      if (open === -1) break;
      const close = template.indexOf("}", open);
      if (close === -1) throw bad("opens an expression with { it never closes");
      if (++expressions > MAX_EXPRESSIONS) {
        throw bad(`has more than ${MAX_EXPRESSIONS} expressions`);
      }
      const body = template.slice(open + 1, close);
      const op = Object.hasOwn(OPERATORS, body[0] ?? "") ? body[0]! : "";
      const expression: Expression = { operator: OPERATORS[op]!, specs: [] };
      for (const spec of body.slice(op.length).split(",")) {
        const match = VARSPEC.exec(spec);
        if (match === null) {
          throw bad(
            `has the expression {${body}}, whose ${
              quote(spec)
            } is not a variable name (letters, digits, _ and %XX, with an optional :length or *)`,
          );
        }
        const name = match[1]!;
        expression.specs.push({
          name,
          explode: match[3] === "*",
          prefix: match[2] === undefined ? undefined : Number(match[2]),
        });
        if (!variables.includes(name)) variables.push(name);
        (expression.operator.optional ? optional : required).add(name);
      }
      parts.push(expression);
      at = close + 1;
    }
    const scheme = SCHEME.exec(template);
    if (scheme === null) {
      throw bad(
        "does not start with a scheme (e.g. file:// or demo://): where it expands to could not be checked",
      );
    }
    for (const name of required) optional.delete(name);
    this.#parts = parts;
    this.variables = variables;
    this.optional = optional;
    this.#scheme = scheme[1]!.toLowerCase();
    this.#authority = authorityPattern(parts, scheme[0].length);
  }

  /**
   * Expands the template with `values`. Every variable must be given, but
   * those of `{?…}` and `{&…}`; no other may be.
   *
   * @param values Variable name → a string or a list of strings.
   * @returns The URI.
   * @throws {MCPAdapterError} `invalid_argument` when a variable is
   * missing, unknown, or not a string (list) of at most 4096 characters, or
   * the expansion changes the scheme or host the template spells or runs
   * past 8192 characters.
   */
  expand(values: Readonly<Record<string, UriTemplateValue>>): string {
    const bad = (why: string) =>
      new MCPAdapterError(
        "invalid_argument",
        `Cannot expand the URI template ${quote(this.template)}: ${why}`,
      );
    if (typeof values !== "object" || values === null) {
      throw bad("the variables must be an object of name → string");
    }
    for (const name of Object.keys(values)) {
      if (!this.variables.includes(name)) {
        throw bad(
          `it has no variable ${quote(name)} (its variables: ${
            this.variables.join(", ") || "none"
          })`,
        );
      }
      const value = values[name];
      const items = typeof value === "string" ? [value] : value;
      if (
        !Array.isArray(items) ||
        !items.every((item) =>
          typeof item === "string" && item.length <= MAX_VALUE_CHARS &&
          !LONE_SURROGATE.test(item)
        )
      ) {
        throw bad(
          `${
            quote(name)
          } must be a string, or a list of strings, each of at most ${MAX_VALUE_CHARS} characters of well-formed Unicode`,
        );
      }
    }
    const missing = this.variables.filter((name) =>
      !this.optional.has(name) && !Object.hasOwn(values, name)
    );
    if (missing.length > 0) {
      throw bad(`give ${missing.map(quote).join(", ")}`);
    }
    let uri = "";
    for (const part of this.#parts) {
      uri += typeof part === "string"
        ? encode(part, true)
        : expandExpression(part, values);
    }
    if (uri.length > MAX_URI_CHARS) {
      throw bad(`the URI would be longer than ${MAX_URI_CHARS} characters`);
    }
    const problem = this.#placeProblem(uri);
    if (problem !== undefined) throw bad(problem);
    return uri;
  }

  /** Why `uri` leaves the scheme or authority the template spells, if it does. */
  #placeProblem(uri: string): string | undefined {
    const scheme = SCHEME.exec(uri);
    if (scheme === null || scheme[1]!.toLowerCase() !== this.#scheme) {
      return `the values change its scheme ${quote(this.#scheme)}`;
    }
    const rest = uri.slice(scheme[0].length);
    const authority = rest.startsWith("//")
      ? /^\/\/([^/?#]*)/.exec(rest)![1]!
      : undefined;
    const pattern = this.#authority;
    if (
      pattern === undefined
        ? authority !== undefined
        : authority === undefined || !pattern.test(authority)
    ) {
      return `the values change the host it names (${
        quote(authority ?? "none")
      })`;
    }
    return undefined;
  }
}

/**
 * The template's authority (after `scheme://`, up to the first literal `/`,
 * `?` or `#`, or the first expression of a path, query or fragment
 * operator) as a pattern its expansion must match: literal text exactly,
 * a `{host}` or `{.label}` expression only host characters. `undefined`
 * when the template has no `//` after its scheme.
 */
function authorityPattern(
  parts: readonly (string | Expression)[],
  schemeLength: number,
): RegExp | undefined {
  let source = "";
  let skip = schemeLength;
  let started = false;
  for (const part of parts) {
    if (typeof part !== "string") {
      if (!started) return undefined; // an expression right after the scheme
      const { first, reserved } = part.operator;
      if (
        reserved || first === "/" || first === "?" || first === "&" ||
        first === ";"
      ) {
        break;
      }
      source += "[A-Za-z0-9._~%,-]*";
      continue;
    }
    let text = part.slice(skip);
    skip = 0;
    if (!started) {
      if (!text.startsWith("//")) return undefined;
      text = text.slice(2);
      started = true;
    }
    const end = text.search(/[/?#]/);
    source += escapeRegExp(end === -1 ? text : text.slice(0, end));
    if (end !== -1) break;
  }
  return started ? new RegExp(`^${source}$`, "i") : undefined;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** One expression expanded (RFC 6570, appendix A). */
function expandExpression(
  expression: Expression,
  values: Readonly<Record<string, UriTemplateValue>>,
): string {
  const { first, separator, named, ifEmpty, reserved } = expression.operator;
  const out: string[] = [];
  for (const { name, explode, prefix } of expression.specs) {
    if (!Object.hasOwn(values, name)) continue;
    const value = values[name]!;
    if (typeof value === "string") {
      const text = encode(
        prefix === undefined ? value : [...value].slice(0, prefix).join(""),
        reserved,
      );
      out.push(
        named ? (value === "" ? name + ifEmpty : `${name}=${text}`) : text,
      );
      continue;
    }
    if (value.length === 0) continue; // an empty list is undefined
    const items = value.map((item) => encode(item, reserved));
    if (!explode) {
      out.push(named ? `${name}=${items.join(",")}` : items.join(","));
    } else if (named) {
      out.push(
        items.map((item) => item === "" ? name + ifEmpty : `${name}=${item}`)
          .join(separator),
      );
    } else out.push(items.join(separator));
  }
  return out.length === 0 ? "" : first + out.join(separator);
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;

/**
 * `text` percent-encoded as UTF-8, but its unreserved characters (and,
 * with `reserved`, its reserved characters and `%XX` triplets).
 */
function encode(text: string, reserved: boolean): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (UNRESERVED.test(char) || (reserved && RESERVED.test(char))) {
      out += char;
    } else if (
      reserved && char === "%" && /^%[0-9A-Fa-f]{2}$/.test(text.slice(i, i + 3))
    ) {
      out += text.slice(i, i + 3);
      i += 2;
    } else {
      const point = text.codePointAt(i)!;
      if (point > 0xffff) i++;
      out += encodeURIComponent(String.fromCodePoint(point))
        .replace(
          /[!'()*]/g,
          (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
        );
    }
  }
  return out;
}

function quote(value: unknown): string {
  const text = typeof value === "string" ? value : String(value);
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);
}
