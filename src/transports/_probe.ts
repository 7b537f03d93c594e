/**
 * Tells whether a URL speaks streamable HTTP, for the error of an SSE
 * transport pointed at one: it POSTs an `initialize` there, as a streamable
 * HTTP client would, and a 2xx JSON or SSE answer says yes. A session the
 * probe opened is ended with DELETE. Used only after the SSE GET failed;
 * loaded lazily. Web standards only. Internal.
 *
 * @module
 */

import { discardBody } from "./_body.ts";
import type { HttpClient } from "./_client.ts";
import { mediaType } from "./_headers.ts";
import { LATEST_PROTOCOL_VERSION, VERSION } from "../version.ts";

const PROBE = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: LATEST_PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: "@cleveragents/mcp-adapter probe", version: VERSION },
  },
});
/** How long the DELETE of a probe's session may take, in milliseconds. */
const DELETE_TIMEOUT_MS = 2000;

/**
 * Whether `url` answers a streamable-HTTP `initialize` POST. Never throws:
 * a failure to ask is a no.
 *
 * @param http The transport's client: its headers, fetch and close signal.
 * @param url The configured URL.
 */
export async function speaksStreamableHttp(
  http: HttpClient,
  url: URL,
): Promise<boolean> {
  let response: Response;
  try {
    response = await http.request("POST", url, () => ({
      ...http.base,
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
    }), PROBE);
  } catch {
    return false;
  }
  discardBody(response);
  const type = mediaType(response.headers.get("content-type"));
  const streamable = response.ok &&
    (type === "application/json" || type === "text/event-stream");
  const session = response.headers.get("mcp-session-id");
  if (streamable && session !== null) {
    await http.request(
      "DELETE",
      url,
      () => ({ ...http.base, "mcp-session-id": session }),
      undefined,
      AbortSignal.timeout(DELETE_TIMEOUT_MS),
    ).then(discardBody, () => {});
  }
  return streamable;
}
