/**
 * The built-in lexical ranker, as a host uses it: the tools a request finds,
 * filtering with `accept`, updates, and its options.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  createLexicalRanker,
  type ToolSearchEntry,
} from "@cleveragents/mcp-adapter/search";
import { MCPConfigError } from "@cleveragents/mcp-adapter";

function tool(
  server: string,
  name: string,
  description: string,
  properties: Record<string, unknown> = {},
): ToolSearchEntry {
  return {
    id: `${server}/${name}`,
    server,
    name,
    description,
    inputSchema: { type: "object", properties },
  };
}

const CATALOG: ToolSearchEntry[] = [
  tool("files", "delete_file", "Deletes a file from the workspace.", {
    path: { type: "string", description: "Path of the file" },
  }),
  tool("files", "read_file", "Reads the contents of a file.", {
    path: { type: "string", description: "Path of the file" },
  }),
  tool("files", "copy_file", "Copies a file.", {
    path: { type: "string", description: "Path of the file" },
  }),
  tool("files", "list_directory", "Lists the entries of a directory.", {
    path: { type: "string" },
  }),
  tool("github", "create_pull_request", "Opens a new pull request.", {
    title: { type: "string" },
    head: { type: "string", description: "The branch with the changes" },
  }),
  tool("github", "list_pull_requests", "Lists pull requests of a repository."),
  tool("github", "create_repository", "Creates a new repository."),
  tool("github", "search_issues", "Searches issues and pull requests."),
  tool("sentry", "search_issues", "Searches error issues of a project."),
  tool("sentry", "update_issue", "Changes the status or assignee of an issue."),
  tool("flags", "enable_feature_flag", "Enables a feature flag."),
  tool("flags", "create_feature_flag", "Creates a feature flag."),
  tool("shop", "get_item", "Returns one record.", {
    sku: { type: "string", description: "Stock keeping unit" },
  }),
  // Sorts before get_item: a tie would go its way.
  tool("shop", "get_invoice", "Returns one record.", {
    invoice_number: { type: "string" },
  }),
];

function ranker() {
  const ranker = createLexicalRanker();
  ranker.add(CATALOG);
  return ranker;
}

function ids(query: string, k = 3, accept?: (id: string) => boolean) {
  return ranker().search(query, { k, accept }).map((hit) => hit.id);
}

describe("createLexicalRanker() finds", () => {
  it("a tool by a verb its author did not use (remove → delete)", () => {
    assert.equal(ids("remove the old log file")[0], "files/delete_file");
  });

  it("a tool by an everyday phrasal verb (turn on → enable)", () => {
    assert.equal(
      ids("turn on the dark-mode flag")[0],
      "flags/enable_feature_flag",
    );
  });

  it("a tool by one of its parameter names", () => {
    assert.equal(ids("the record with SKU ab-1234")[0], "shop/get_item");
  });

  it("the tool of the server a request names, when servers share a tool", () => {
    assert.equal(ids("search issues in Sentry")[0], "sentry/search_issues");
    assert.equal(ids("search GitHub issues")[0], "github/search_issues");
  });

  it("a tool by an abbreviation (PR, repo)", () => {
    assert.deepEqual(ids("which PRs does the repo have?", 1), [
      "github/list_pull_requests",
    ]);
    assert.equal(ids("make me a new repo")[0], "github/create_repository");
  });

  it("a tool whose name the request explains, before one that shares words with it", () => {
    // Both are about feature flags; only one creates.
    assert.equal(ids("create a feature flag")[0], "flags/create_feature_flag");
    // The other's description says more about collections, not what it is.
    const index = createLexicalRanker();
    index.add([
      tool("api", "create_collection", "Creates a collection."),
      tool(
        "api",
        "generate_from_spec",
        "Creates a collection from a spec: the collection's requests are created from the spec's paths, one collection per spec.",
      ),
    ]);
    assert.equal(
      index.search("create a collection", { k: 1 })[0]?.id,
      "api/create_collection",
    );
  });
});

describe("createLexicalRanker() reads what a request asks done", () => {
  // Each pair shares its words, and BM25 alone favours the wrong one.
  const first = (entries: ToolSearchEntry[], query: string) => {
    const ranker = createLexicalRanker();
    ranker.add(entries);
    return ranker.search(query, { k: 1 })[0]?.id;
  };

  it("a question reads: a tool that creates does not answer it", () => {
    const entries = [
      tool(
        "notes",
        "create_notebook",
        "Creates a notebook. A notebook holds notebook sections and notebook pages.",
      ),
      tool(
        "notes",
        "get_notebooks",
        "Returns the notebooks of the account, with each one's owner, sharing settings and the date it was last modified.",
      ),
    ];
    assert.equal(
      first(entries, "Which notebooks do I have?"),
      "notes/get_notebooks",
    );
  });

  it("a request to make something is not answered by a tool that deletes", () => {
    const entries = [
      tool(
        "notes",
        "delete_page",
        "Deletes a page. The page is gone for good.",
      ),
      tool(
        "notes",
        "write_page",
        "Writes a page into a section of a notebook, from the HTML given, with its title and its content.",
      ),
    ];
    assert.equal(
      first(entries, "Put my meeting notes on a new page"),
      "notes/write_page",
    );
  });

  it("a verb used as a noun asks nothing (a to-do list is not listing)", () => {
    const entries = [
      tool(
        "notes",
        "patch_page",
        "Appends blocks to a page, after the last block or after the block given, as children of the block.",
      ),
      tool("notes", "get_page", "Returns a page."),
    ];
    assert.equal(
      first(entries, "Append a to-do list to the page"),
      "notes/patch_page",
    );
  });
});

describe("search()", () => {
  it("answers best first, at most k hits, with scores comparable within the answer", () => {
    const hits = ranker().search("list the files of a directory", { k: 4 });
    assert.equal(hits.length, 4);
    assert.equal(hits[0]!.id, "files/list_directory");
    for (let i = 1; i < hits.length; i++) {
      assert.ok(hits[i - 1]!.score >= hits[i]!.score);
    }
    assert.ok(hits.every((hit) => hit.score > 0));
  });

  it("returns only what accept lets through, still best first", () => {
    const seen: string[] = [];
    const hits = ranker().search("search issues", {
      k: 2,
      accept: (id) => {
        seen.push(id);
        return !id.startsWith("github/");
      },
    });
    assert.deepEqual(hits.map((hit) => hit.id), [
      "sentry/search_issues",
      "sentry/update_issue",
    ]);
    assert.ok(!hits.some((hit) => hit.id.startsWith("github/")));
    // Asked only about tools that matched the query, never the whole catalog.
    assert.ok(seen.length < CATALOG.length, `asked about ${seen.length}`);
    assert.deepEqual(ids("search issues", 5, () => false), []);
  });

  it("answers the same when accept itself searches the same ranker", () => {
    const index = ranker();
    const plain = index.search("list the files of a directory", { k: 4 });
    const inner: string[] = [];
    const nested = index.search("list the files of a directory", {
      k: 4,
      accept: (id) => {
        inner.push(index.search("create a feature flag", { k: 1 })[0]!.id);
        return id !== "";
      },
    });
    assert.deepEqual(nested, plain);
    assert.ok(inner.length >= 4);
    assert.ok(inner.every((id) => id === "flags/create_feature_flag"));
  });

  it("finds nothing for an empty query, a query of symbols, or k below 1", () => {
    assert.deepEqual(ids(""), []);
    assert.deepEqual(ids("?! … 🤷"), []);
    assert.deepEqual(ids("delete file", 0), []);
    assert.deepEqual(createLexicalRanker().search("delete file", { k: 5 }), []);
  });

  it("breaks ties by id, so equal tools come back in one order", () => {
    const twins = createLexicalRanker();
    twins.add([
      tool("b", "ping", "Checks the server."),
      tool("a", "ping", "Checks the server."),
    ]);
    const hits = twins.search("ping the server", { k: 2 });
    assert.deepEqual(hits.map((hit) => hit.id), ["a/ping", "b/ping"]);
    assert.equal(hits[0]!.score, hits[1]!.score);
  });
});

describe("add() and remove()", () => {
  it("replaces a tool added again under its id, and forgets a removed one", () => {
    const index = ranker();
    index.add([tool("files", "read_file", "Uploads a blob to storage.")]);
    assert.equal(
      index.search("upload a blob", { k: 1 })[0]?.id,
      "files/read_file",
    );
    assert.deepEqual(index.search("contents", { k: 5 }), []);
    index.remove(["files/read_file", "no/such-tool"]);
    assert.deepEqual(index.search("upload a blob", { k: 5 }), []);
  });
});

describe("options", () => {
  it("adds a host's synonyms to the built-in vocabulary", () => {
    const entries = [
      tool("ledger", "create_invoice", "Creates an invoice for a customer."),
      tool("ledger", "list_customers", "Lists customers."),
    ];
    const plain = createLexicalRanker();
    plain.add(entries);
    assert.deepEqual(plain.search("send a bill", { k: 1 }), []);
    const host = createLexicalRanker({ synonyms: [["invoice", "bill"]] });
    host.add(entries);
    assert.equal(
      host.search("send a bill", { k: 1 })[0]?.id,
      "ledger/create_invoice",
    );
  });

  it("takes field weights field by field", () => {
    const entries = [
      tool("a", "alpha", "Sends the quarterly report."),
      tool("b", "beta", "Sends a document.", {
        quarterly_report: { type: "boolean" },
      }),
    ];
    const defaults = createLexicalRanker();
    defaults.add(entries);
    assert.equal(
      defaults.search("quarterly report", { k: 1 })[0]?.id,
      "a/alpha",
    );
    const byParameters = createLexicalRanker({
      fieldWeights: { description: 0, parameters: 5 },
    });
    byParameters.add(entries);
    assert.equal(
      byParameters.search("quarterly report", { k: 1 })[0]?.id,
      "b/beta",
    );
  });

  it("rejects a bad option with an error that names it and says what to give", () => {
    assert.throws(
      () => createLexicalRanker({ fieldWeights: { name: -1 } }),
      (error: MCPConfigError) => {
        assert.ok(error instanceof MCPConfigError);
        assert.equal(error.code, "invalid_config");
        assert.equal(error.field, "fieldWeights.name");
        assert.match(error.message, /-1: give a finite number of 0 or more/);
        return true;
      },
    );
    assert.throws(
      () =>
        createLexicalRanker({
          synonyms: [["ok"], "bill" as unknown as string[]],
        }),
      /synonyms\[1\] must be a list of words, like \["invoice", "bill"\]/,
    );
  });
});
