#!/usr/bin/env node
// A minimal MCP server for the client benchmark (bench/client_bench.ts): it
// does as little per message as an honest server can, so that the client,
// not the server, is what a benchmark measures. Plain Node, no dependencies,
// no SDK. The benchmark prints this server's CPU per call beside the
// client's, which is how it checks that the server is the cheaper side.
//
//   node bench/echo_server.mjs stdio   newline-delimited JSON-RPC on stdin/stdout;
//                                      all answers to one chunk read go out in one write
//   node bench/echo_server.mjs http    node:http on 127.0.0.1, a free port; prints
//                                      "listening <port>" on stdout. POST /mcp answers
//                                      application/json, POST /sse a text/event-stream
//                                      body with one event and a Content-Length (as a
//                                      server or proxy that buffers answers sends it),
//                                      POST /sse-stream the same event streamed: chunked,
//                                      no Content-Length (as the SDK's server sends
//                                      it). Mcp-Session-Id on
//                                      initialize, 202 for notifications, 405 for GET.
//
//   node bench/echo_server.mjs stdio modern, node bench/echo_server.mjs http modern
//                                      the same, speaking MCP 2026-07-28 only: no initialize
//                                      (answered -32022), server/discover, every request
//                                      checked for its _meta envelope (protocol version,
//                                      client capabilities), every result with resultType
//                                      "complete" and serverInfo in _meta; over HTTP only
//                                      POST /mcp (JSON), MCP-Protocol-Version, Mcp-Method and
//                                      Mcp-Name checked against the body (-32020), no sessions.
//
// Both modes exit when stdin ends, so a server never outlives its benchmark.
//
// Methods: initialize, ping, tools/list, tools/call (modern: server/discover
// instead of initialize). Tools:
//   echo {text}   answers {content: [{type: "text", text}]}
//   big  {bytes}  answers one text block of `bytes` ASCII characters (cached per size)
//   cpu  {}       answers this process's CPU time so far, {user, system} in µs,
//                 as structuredContent and as JSON text

import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import process from "node:process";

const TOOLS = JSON.stringify([
  {
    name: "echo",
    description: "Echoes `text` back as a text content block",
    inputSchema: {
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    },
  },
  {
    name: "big",
    description: "Answers one text block of `bytes` characters",
    inputSchema: {
      type: "object",
      properties: { bytes: { type: "integer", minimum: 0 } },
      required: ["bytes"],
    },
  },
  {
    name: "cpu",
    description: "This server's CPU time so far, in microseconds",
    inputSchema: { type: "object", properties: {} },
  },
]);
const SUPPORTED = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;

/** The serialized `result` of `big`, by size: built once, reused for every call. */
const bigResults = new Map();
function bigResult(bytes) {
  let result = bigResults.get(bytes);
  if (result === undefined) {
    const text = "lorem ipsum dolor sit amet ".repeat(Math.ceil(bytes / 27))
      .slice(0, bytes);
    result = JSON.stringify({ content: [{ type: "text", text }] });
    bigResults.set(bytes, result);
  }
  return result;
}

const errorJson = (id, code, message) =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":${
    JSON.stringify({ code, message })
  }}`;

/** The serialized `result` of a tools/call, or an error object. */
function callTool(params) {
  const args = params?.arguments ?? {};
  switch (params?.name) {
    case "echo":
      if (typeof args.text !== "string") {
        return { code: INVALID_PARAMS, message: "echo needs a string `text`" };
      }
      return `{"content":[{"type":"text","text":${
        JSON.stringify(args.text)
      }}]}`;
    case "big":
      if (!Number.isInteger(args.bytes) || args.bytes < 0) {
        return { code: INVALID_PARAMS, message: "big needs integer `bytes`" };
      }
      return bigResult(args.bytes);
    case "cpu": {
      const { user, system } = process.cpuUsage();
      const usage = JSON.stringify({ user, system });
      return `{"content":[{"type":"text","text":${
        JSON.stringify(usage)
      }}],"structuredContent":${usage}}`;
    }
    default:
      return {
        code: INVALID_PARAMS,
        message: `Unknown tool ${JSON.stringify(params?.name)}`,
      };
  }
}

/**
 * The serialized answer to one parsed message, or `undefined` when it needs
 * none (notifications, responses).
 */
function answer(message) {
  const { id, method } = message;
  if (id === undefined || id === null || typeof method !== "string") {
    return undefined;
  }
  let result;
  switch (method) {
    case "tools/call":
      result = callTool(message.params);
      break;
    case "ping":
      result = "{}";
      break;
    case "tools/list":
      result = `{"tools":${TOOLS}}`;
      break;
    case "initialize": {
      const asked = message.params?.protocolVersion;
      result = JSON.stringify({
        protocolVersion: SUPPORTED.includes(asked) ? asked : SUPPORTED[0],
        capabilities: { tools: {} },
        serverInfo: { name: "bench-echo", version: "0" },
      });
      break;
    }
    default:
      return errorJson(id, METHOD_NOT_FOUND, `Method not found: ${method}`);
  }
  return typeof result === "string"
    ? `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`
    : errorJson(id, result.code, result.message);
}

const MODERN = ["2026-07-28"];
const META_VERSION = "io.modelcontextprotocol/protocolVersion";
const META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const UNSUPPORTED_VERSION = -32022;
const HEADER_MISMATCH = -32020;
/** What every modern result ends with: its type and the server's name. */
const COMPLETE =
  `"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench-echo","version":"0"}}`;
const DISCOVER = `{"supportedVersions":${
  JSON.stringify(MODERN)
},"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"private",${COMPLETE}}`;
const MODERN_TOOLS =
  `{"tools":${TOOLS},"ttlMs":0,"cacheScope":"private",${COMPLETE}}`;

const unsupported = (id, requested) =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":${
    JSON.stringify({
      code: UNSUPPORTED_VERSION,
      message: `Unsupported protocol version: ${requested}`,
      data: { supported: MODERN, requested },
    })
  }}`;

/**
 * The 2026-07-28 answer to one parsed message: `{ reply, status }`, or
 * `undefined` when it needs none. Every request must carry the envelope.
 */
function answerModern(message) {
  const { id, method } = message;
  if (id === undefined || id === null || typeof method !== "string") {
    return undefined;
  }
  const meta = message.params?._meta;
  const version = meta?.[META_VERSION];
  if (method === "initialize" || !MODERN.includes(version)) {
    return {
      reply: unsupported(
        id,
        method === "initialize"
          ? message.params?.protocolVersion
          : version ?? "(none)",
      ),
      status: 400,
    };
  }
  const capabilities = meta[META_CAPABILITIES];
  if (capabilities === null || typeof capabilities !== "object") {
    return {
      reply: errorJson(id, INVALID_PARAMS, `_meta lacks ${META_CAPABILITIES}`),
      status: 400,
    };
  }
  let result;
  switch (method) {
    case "tools/call":
      result = callTool(message.params);
      if (typeof result === "string") {
        result = `${result.slice(0, -1)},${COMPLETE}}`;
      }
      break;
    case "ping":
      result = `{${COMPLETE}}`;
      break;
    case "tools/list":
      result = MODERN_TOOLS;
      break;
    case "server/discover":
      result = DISCOVER;
      break;
    default:
      return {
        reply: errorJson(id, METHOD_NOT_FOUND, `Method not found: ${method}`),
        status: 404,
      };
  }
  return typeof result === "string"
    ? {
      reply: `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`,
      status: 200,
    }
    : { reply: errorJson(id, result.code, result.message), status: 400 };
}

/** Why a modern POST's headers disagree with its body, or `undefined` when they agree. */
function headerMismatch(headers, message) {
  const version = message.params?._meta?.[META_VERSION];
  if (headers["mcp-protocol-version"] !== version) {
    return `MCP-Protocol-Version ${
      headers["mcp-protocol-version"] ?? "(none)"
    }, body ${version}`;
  }
  if (headers["mcp-method"] !== message.method) {
    return `Mcp-Method ${
      headers["mcp-method"] ?? "(none)"
    }, body ${message.method}`;
  }
  if (
    message.method === "tools/call" &&
    headers["mcp-name"] !== message.params?.name
  ) {
    return `Mcp-Name ${
      headers["mcp-name"] ?? "(none)"
    }, body ${message.params?.name}`;
  }
  return undefined;
}

function serveStdio(modern) {
  process.stdin.setEncoding("utf8");
  // Linear framing: the unterminated tail is kept in parts and joined once
  // its newline arrives.
  let parts = [];
  process.stdin.on("data", (chunk) => {
    let out = "";
    let start = 0;
    let newline = chunk.indexOf("\n");
    while (newline !== -1) {
      let line = chunk.slice(start, newline);
      if (parts.length > 0) {
        parts.push(line);
        line = parts.join("");
        parts = [];
      }
      if (line.length > 1) {
        const message = JSON.parse(line);
        const reply = modern ? answerModern(message)?.reply : answer(message);
        if (reply !== undefined) out += reply + "\n";
      }
      start = newline + 1;
      newline = chunk.indexOf("\n", start);
    }
    if (start < chunk.length) parts.push(chunk.slice(start));
    if (out !== "") process.stdout.write(out);
  });
  process.stdin.on("end", () => process.exit(0));
}

/** Answers one modern POST (its parsed body) on `/mcp`: JSON only, no sessions. */
function respondModern(request, response, message) {
  const mismatch = message.method === undefined
    ? undefined
    : headerMismatch(request.headers, message);
  const answered = mismatch === undefined ? answerModern(message) : {
    reply: errorJson(
      message.id ?? null,
      HEADER_MISMATCH,
      `Bad Request: the request headers and body disagree: ${mismatch}`,
    ),
    status: 400,
  };
  if (answered === undefined) {
    response.writeHead(202, { "content-length": "0" });
    response.end();
    return;
  }
  response.writeHead(answered.status, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(answered.reply)),
  });
  response.end(answered.reply);
}

function serveHttp(modern) {
  const server = createServer((request, response) => {
    if (request.method !== "POST") {
      request.resume();
      response.writeHead(request.method === "DELETE" ? 200 : 405, {
        allow: "POST, DELETE",
        "content-length": "0",
      });
      response.end();
      return;
    }
    const streamed = request.url === "/sse-stream";
    const sse = streamed || request.url === "/sse";
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk) => body += chunk);
    request.on("end", () => {
      const message = JSON.parse(body);
      if (modern) {
        respondModern(request, response, message);
        return;
      }
      const reply = answer(message);
      if (reply === undefined) {
        response.writeHead(202, { "content-length": "0" });
        response.end();
        return;
      }
      const text = sse ? `event: message\ndata: ${reply}\n\n` : reply;
      const headers = {
        "content-type": sse ? "text/event-stream" : "application/json",
      };
      if (!streamed) {
        headers["content-length"] = String(Buffer.byteLength(text));
      }
      if (message.method === "initialize") {
        headers["mcp-session-id"] = randomUUID();
      }
      response.writeHead(200, headers);
      response.end(text);
    });
  });
  // Rounds of other clients can leave a connection idle for many seconds.
  server.keepAliveTimeout = 300_000;
  server.headersTimeout = 310_000;
  server.listen(0, "127.0.0.1", () => {
    process.stdout.write(`listening ${server.address().port}\n`);
  });
  process.stdin.resume();
  process.stdin.on("end", () => process.exit(0));
}

const [mode, era = "legacy"] = process.argv.slice(2);
const known = era === "legacy" || era === "modern";
if (known && mode === "stdio") serveStdio(era === "modern");
else if (known && mode === "http") serveHttp(era === "modern");
else {
  process.stderr.write("usage: node echo_server.mjs stdio|http [modern]\n");
  process.exit(2);
}
