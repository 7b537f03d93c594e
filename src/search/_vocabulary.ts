/**
 * The vocabulary that users and tool authors use differently. Internal.
 *
 * Every group is general: the verbs of create/read/update/delete and their
 * everyday words, the abbreviations of software work, and nouns that APIs
 * name one way and people another. None names a product or a server, and
 * none was added for a single request: a group earns its place when the
 * words are interchangeable in most sentences about tools.
 *
 * @module
 */

import { analyse } from "./_analyze.ts";
import { stem } from "./_stem.ts";

/**
 * Words that mean the same action or thing to someone asking for a tool. A
 * query word in a group also matches the group's other words, at a discount.
 */
export const SYNONYMS: readonly (readonly string[])[] = [
  // Reading one thing.
  [
    "get",
    "fetch",
    "retrieve",
    "read",
    "show",
    "view",
    "display",
    "inspect",
    "describe",
    "detail",
    "print",
    "dump",
    "grab",
  ],
  // Reading many.
  ["list", "show", "enumerate", "browse"],
  // Looking for something.
  ["search", "find", "query", "lookup", "locate", "look"],
  // Making something.
  ["create", "add", "new", "make", "insert", "generate", "register", "compose"],
  // Removing it.
  ["delete", "remove", "erase", "drop", "destroy", "discard", "trash", "purge"],
  // Changing it.
  [
    "update",
    "edit",
    "modify",
    "change",
    "set",
    "patch",
    "alter",
    "amend",
    "adjust",
  ],
  // Running something.
  ["run", "execute", "exec", "invoke", "trigger", "launch", "start"],
  // Stopping it.
  ["stop", "cancel", "abort", "halt", "kill", "terminate"],
  // Sending something out.
  ["send", "post", "publish", "submit"],
  ["move", "transfer", "relocate"],
  ["copy", "duplicate", "clone"],
  ["close", "resolve", "complete", "finish"],
  ["enable", "activate"],
  ["disable", "deactivate"],
  ["download", "export", "save"],
  ["upload", "import"],
  // Things.
  ["directory", "folder"],
  ["comment", "note", "reply"],
  ["issue", "ticket", "bug"],
  ["task", "todo"],
  ["user", "member", "people", "person"],
  ["link", "url", "uri"],
  ["email", "mail"],
  ["image", "picture", "photo", "img"],
  ["chart", "graph", "plot", "diagram", "visualize"],
  ["column", "field", "attribute", "property"],
  ["row", "record"],
  ["tag", "label"],
  ["error", "exception"],
  ["meeting", "event", "appointment"],
];

/**
 * Words of a request that point at what a tool does without being its word:
 * "which projects do I have" lists them. One way only: a tool that says
 * "list" is no evidence for a request that says "which".
 */
export const HINTS: Readonly<Record<string, readonly string[]>> = {
  which: ["list"],
  all: ["list"],
  who: ["user", "member"],
};

/**
 * Phrasal verbs of everyday requests and the verb a tool's author writes:
 * "turn on" a flag is to enable it, "tear down" an environment to delete
 * it. Their particles are function words, so they are read as phrases.
 */
export const PHRASES: Readonly<Record<string, string>> = {
  "turn on": "enable",
  "switch on": "enable",
  "turn off": "disable",
  "switch off": "disable",
  "set up": "create configure",
  "spin up": "create start",
  "tear down": "delete stop",
  "take down": "delete stop",
  "shut down": "stop",
  "clean up": "delete",
  "look up": "lookup",
  "sign in": "login",
  "log in": "login",
  "sign out": "logout",
  "log out": "logout",
  "roll back": "rollback",
  "back up": "backup",
  "pull up": "show",
  "bring up": "show",
};

/** {@linkcode PHRASES} by their two words, each to the words it stands for. */
const PHRASE_WORDS: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries(PHRASES).map(([phrase, verbs]) => [phrase, verbs.split(" ")]),
);

/**
 * The verbs tools use for a phrasal verb of two words, if it is one.
 *
 * @param first The first word, lower-case (`turn`).
 * @param second The second word, lower-case (`on`).
 * @returns The words it stands for (`["enable"]`), or `undefined`.
 */
export function phraseOf(
  first: string,
  second: string,
): readonly string[] | undefined {
  return PHRASE_WORDS.get(`${first} ${second}`);
}

/**
 * Abbreviations and the words they stand for: the same thing, so they match
 * at full weight. A phrase (`pull request`) is matched word by word.
 */
export const ABBREVIATIONS: Readonly<Record<string, string>> = {
  repo: "repository",
  pr: "pull request",
  mr: "merge request",
  db: "database",
  k8s: "kubernetes",
  kube: "kubernetes",
  msg: "message",
  env: "environment",
  config: "configuration",
  cfg: "configuration",
  dir: "directory",
  info: "information",
  doc: "document",
  docs: "documentation",
  org: "organization",
  auth: "authentication",
  id: "identifier",
  app: "application",
  ns: "namespace",
  dep: "dependency",
  deps: "dependencies",
  var: "variable",
  param: "parameter",
  arg: "argument",
  desc: "description",
  stats: "statistics",
  vm: "virtual machine",
  ci: "continuous integration",
  dm: "direct message",
  pic: "picture",
  cal: "calendar",
  tz: "timezone",
  prod: "production",
  perf: "performance",
  admin: "administrator",
  pkg: "package",
  lib: "library",
  fn: "function",
  func: "function",
  err: "error",
  req: "request",
  resp: "response",
  txn: "transaction",
  num: "number",
  avg: "average",
  pwd: "password",
  creds: "credentials",
  acct: "account",
  addr: "address",
};

/** A term another word may stand for, with how much a match counts. */
export interface Alternative {
  term: string;
  weight: number;
}

/** The stemmed single-word forms of a group's words. */
function stems(words: readonly string[]): string[] {
  const out: string[] = [];
  for (const word of words) {
    for (const analysed of analyse(word, 64, 4)) out.push(...analysed.parts);
  }
  return out;
}

/**
 * Builds the table from a term to its alternatives. Abbreviations expand to
 * every word of their phrase (both directions for single words); synonyms to
 * every other word of each group the term is in.
 *
 * @param groups Synonym groups (the built-in ones and a host's).
 * @param synonymWeight What a synonym's match counts, against 1 for the word.
 * @param hints One-way hints, word → what it points at.
 * @param abbreviations Abbreviation → the words it stands for.
 */
export function buildVocabulary(
  groups: readonly (readonly string[])[],
  synonymWeight: number,
  hints: Readonly<Record<string, readonly string[]>> = HINTS,
  abbreviations: Readonly<Record<string, string>> = ABBREVIATIONS,
): Map<string, Alternative[]> {
  const table = new Map<string, Map<string, number>>();
  const link = (from: string, to: string, weight: number) => {
    if (from === to) return;
    let row = table.get(from);
    if (row === undefined) table.set(from, row = new Map());
    if ((row.get(to) ?? 0) < weight) row.set(to, weight);
  };
  for (const group of groups) {
    const terms = [...new Set(stems(group))];
    for (const from of terms) {
      for (const to of terms) link(from, to, synonymWeight);
    }
  }
  for (const [word, targets] of Object.entries(hints)) {
    for (const to of stems(targets)) link(stem(word), to, synonymWeight);
  }
  for (const [short, long] of Object.entries(abbreviations)) {
    const from = stem(short);
    const words = stems([long]);
    for (const to of words) link(from, to, 1);
    if (words.length === 1) link(words[0]!, from, 1);
  }
  const out = new Map<string, Alternative[]>();
  for (const [from, row] of table) {
    out.set(from, [...row].map(([term, weight]) => ({ term, weight })));
  }
  return out;
}
