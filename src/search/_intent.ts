/**
 * What a request asks done, and what a tool does, as kinds of action: read,
 * create, update, delete. Internal.
 *
 * A request that reads ("which notebooks do I have?", "show the logs") is
 * not served by a tool that creates or deletes, however many of its words
 * the tool shares; one that creates is not served by one that deletes. A
 * tool's kind comes from the verbs of its name (`create_issue`,
 * `list-onenote-notebooks`), or from `readOnlyHint` when its name has none;
 * a request's from its verbs, and a question reads. Kinds that are often
 * mistaken for each other (create and update: "add a status update") do not
 * conflict, a tool or request of no known kind conflicts with nothing, and
 * a request of several kinds conflicts only with a tool that none of them
 * suits.
 *
 * @module
 */

/** A kind of action, as a bit. */
export const READ = 1;
/** Makes something new. */
export const CREATE = 2;
/** Changes something that exists. */
export const UPDATE = 4;
/** Removes something. */
export const DELETE = 8;

/**
 * The verbs of each kind, as users and tool authors write them. Left out:
 * words used both ways ("view" is also "view-only"; a tool that generates
 * a chart is how a request to "show" one is served).
 */
export const INTENT_VERBS: Readonly<Record<number, readonly string[]>> = {
  [READ]: [
    "get",
    "fetch",
    "retrieve",
    "read",
    "show",
    "display",
    "inspect",
    "describe",
    "list",
    "enumerate",
    "browse",
    "search",
    "find",
    "lookup",
  ],
  [CREATE]: [
    "create",
    "add",
    "new",
    "make",
    "insert",
    "register",
    "compose",
  ],
  [UPDATE]: [
    "update",
    "edit",
    "modify",
    "change",
    "set",
    "patch",
    "alter",
    "amend",
    "adjust",
    "rename",
  ],
  [DELETE]: [
    "delete",
    "remove",
    "erase",
    "drop",
    "destroy",
    "discard",
    "trash",
    "purge",
  ],
};

/** Words that open a question: a request that asks, reads. */
export const QUESTION_WORDS: ReadonlySet<string> = new Set(
  "which what who whose how is are does do did where when why".split(" "),
);

/** Pairs of kinds that cannot serve each other, as masks by kind. */
const CONFLICTS: Readonly<Record<number, number>> = {
  [READ]: CREATE | UPDATE | DELETE,
  [CREATE]: READ | DELETE,
  [UPDATE]: READ | DELETE,
  [DELETE]: READ | CREATE | UPDATE,
};

/**
 * Whether a request of kinds `request` cannot be served by a tool of kinds
 * `tool`: both are known, and every kind of the request conflicts with
 * every kind of the tool.
 *
 * @param request The request's kinds, as a mask.
 * @param tool The tool's kinds, as a mask.
 * @returns Whether they conflict.
 */
export function conflicts(request: number, tool: number): boolean {
  if (request === 0 || tool === 0) return false;
  for (const kind of [READ, CREATE, UPDATE, DELETE]) {
    if ((request & kind) !== 0 && (CONFLICTS[kind]! & tool) !== tool) {
      return false;
    }
  }
  return true;
}
