/**
 * An adapter's resources: `resources/list` and `resources/templates/list`
 * (cached as the tool list is), and `resources/read` of a URI or of one of
 * the server's templates expanded (RFC 6570, its variables checked, its
 * scheme and host kept), size-capped, in the envelope `invoke()` returns.
 * A `resource_link` in a tool result is never read from here on its own:
 * only a URI the caller passes is. Loaded with the adapter's first use of
 * resources or prompts. Internal.
 *
 * @module
 */

import { checkTimeoutMs } from "../util/time.ts";
import {
  readContents,
  toResource,
  toTemplate,
  uriProblem,
} from "../protocol/resource_list.ts";
import { quoted } from "../util/quoted.ts";
import type {
  MCPOutcome,
  MCPResource,
  MCPResourceRead,
  MCPResourceTemplate,
  ReadResourceOptions,
} from "../protocol/content_types.ts";
import { checkMaxBytes } from "../util/bytes.ts";
import { didYouMean } from "../util/closest.ts";
import { UriTemplate } from "../util/uri_template.ts";
import { type ContentContext, Notes } from "./_context.ts";
import { ListCache } from "./_lists.ts";
import { failed, failure, succeeded } from "./_envelope.ts";
import type { Updates } from "./_updates.ts";

/** The default `maxBytes` of `readResource()`: 8 MiB, as for an app's HTML. */
export const DEFAULT_MAX_RESOURCE_BYTES = 8 * 1024 * 1024;

/** The resources of one server. */
export class Resources {
  readonly #context: ContentContext;
  /** `resources/list`, cached. */
  readonly list: ListCache<MCPResource>;
  /** `resources/templates/list`, cached. */
  readonly templates: ListCache<MCPResourceTemplate>;

  constructor(context: ContentContext, updates: Updates) {
    this.#context = context;
    const follow = () => updates.followList("resources");
    this.list = new ListCache({
      method: "resources/list",
      field: "resources",
      read: toResource,
      key: (resource) => resource.uri,
      follow,
    }, context);
    this.templates = new ListCache({
      method: "resources/templates/list",
      field: "resourceTemplates",
      read: toTemplate,
      key: (template) => template.uriTemplate,
      follow,
      optional: true,
    }, context);
  }

  /**
   * The template of the server's with this `uriTemplate`: the cached list,
   * listed again once when it is not there.
   */
  async template(
    uriTemplate: string,
  ): Promise<MCPResourceTemplate | undefined> {
    const find = (templates: MCPResourceTemplate[]) =>
      templates.find((template) => template.uriTemplate === uriTemplate);
    return find(await this.templates.get()) ??
      find(await this.templates.get(true));
  }

  /** Reads a resource, or a template expanded; see `MCPToolAdapter.readResource`. */
  async read(
    uri: string,
    options: ReadResourceOptions = {},
  ): Promise<MCPOutcome<MCPResourceRead>> {
    const started = performance.now();
    const { connection, server, secrets } = this.#context;
    const timeoutMs = checkTimeoutMs("timeoutMs", options.timeoutMs) ??
      this.#context.requestTimeoutMs;
    const maxBytes = checkMaxBytes(
      options.maxBytes ?? DEFAULT_MAX_RESOURCE_BYTES,
      "readResource()",
    );
    await connection.whenReady("read a resource");
    const fail = (kind: "not_found" | "validation", message: string) =>
      failed(kind, message, started, secrets());
    if (!this.list.offered) {
      return fail(
        "not_found",
        `MCP server "${server}" offers no resources (it declares no resources capability)`,
      );
    }
    let target = uri;
    const variables = options.variables;
    if (variables !== undefined) {
      let template: MCPResourceTemplate | undefined;
      try {
        template = await this.template(uri);
      } catch (error) {
        return failure(error, `Listing the resource templates`, {
          started,
          signal: options.signal,
          secrets: secrets(),
        });
      }
      if (template === undefined) {
        const known = (this.templates.fresh ?? []).map((t) => t.uriTemplate);
        return fail(
          "not_found",
          `MCP server "${server}" has no resource template ${quoted(uri)}${
            didYouMean(uri, known)
          } (${
            known.length === 0
              ? "it lists none"
              : `its templates: ${known.slice(0, 10).join(", ")}${
                known.length > 10 ? ", …" : ""
              }`
          }); pass a uriTemplate of listResourceTemplates()`,
        );
      }
      try {
        target = new UriTemplate(uri).expand(variables);
      } catch (error) {
        return fail("validation", (error as Error).message);
      }
    } else {
      const problem = uriProblem(uri);
      if (problem !== undefined) {
        return fail(
          "validation",
          `Cannot read ${
            quoted(uri)
          }: it ${problem}; pass a resource's uri, or a template with variables`,
        );
      }
    }
    let result: Record<string, unknown>;
    try {
      result = await connection.request("resources/read", { uri: target }, {
        timeoutMs,
        signal: options.signal,
      });
    } catch (error) {
      return failure(error, `Reading resource ${quoted(target)}`, {
        started,
        signal: options.signal,
        secrets: secrets(),
      });
    }
    const notes = new Notes(this.#context, "invalid_resource");
    const read = readContents(result, maxBytes, notes.add);
    notes.flush();
    if ("problem" in read) {
      return failed(
        "server_error",
        `MCP server "${server}" answered resources/read of ${
          quoted(target)
        } with ${read.problem}${
          read.problem.includes("maxBytes")
            ? "; pass a larger maxBytes if you trust this server's resource"
            : ""
        }`,
        started,
        secrets(),
      );
    }
    return succeeded({ uri: target, contents: read.contents }, started);
  }
}
