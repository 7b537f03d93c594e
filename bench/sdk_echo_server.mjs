#!/usr/bin/env node
// The client benchmark's echo server (bench/echo_server.mjs) built with the
// official SDK v2 (`@modelcontextprotocol/server` 2.x) instead of by hand: a
// real server speaking MCP 2026-07-28 only (`legacy: "reject"`), for the
// benchmark's "SDK v2 server" rows. It costs more per call than the clients,
// so those rows show how the clients fare with such a server, not what they
// cost; the hand-written modern echo server (`echo_server.mjs … modern`)
// shows that. Plain JavaScript, so it runs on Deno (`deno run -A --config
// deno.json`, which resolves the package) and on Node (beside an installed
// package) alike.
//
//   … sdk_echo_server.mjs stdio   serveStdio; the server exits when stdin ends
//   … sdk_echo_server.mjs http    createMcpHandler on 127.0.0.1, a free port, on
//                                 Deno.serve (Deno) or a node:http bridge (Node);
//                                 prints "listening <port>"; POST /mcp; exits when
//                                 stdin ends
//
// Tools, as in echo_server.mjs: echo {text}, cpu {} (this process's CPU time
// so far, {user, system} in µs, as structuredContent and as JSON text).

import { Buffer } from "node:buffer";
import { createServer } from "node:http";
import process from "node:process";
import {
  createMcpHandler,
  fromJsonSchema,
  McpServer,
} from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";

/** The server with its tools; over HTTP the SDK builds one per request. */
function build() {
  const server = new McpServer({ name: "bench-echo-sdk2", version: "0" });
  server.registerTool("echo", {
    description: "Echoes `text` back as a text content block",
    inputSchema: fromJsonSchema({
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    }),
  }, (args) => ({ content: [{ type: "text", text: args.text }] }));
  server.registerTool("cpu", {
    description: "This server's CPU time so far, in microseconds",
    inputSchema: fromJsonSchema({ type: "object", properties: {} }),
  }, () => {
    const { user, system } = process.cpuUsage();
    const usage = { user, system };
    return {
      content: [{ type: "text", text: JSON.stringify(usage) }],
      structuredContent: usage,
    };
  });
  return server;
}

function serveHttp() {
  const handler = createMcpHandler(build, { legacy: "reject" });
  const serve = (request) =>
    new URL(request.url).pathname === "/mcp"
      ? handler.fetch(request)
      : new Response("not found", { status: 404 });
  const announce = (port) => process.stdout.write(`listening ${port}\n`);
  const deno = globalThis.Deno;
  if (deno !== undefined) {
    deno.serve(
      {
        hostname: "127.0.0.1",
        port: 0,
        onListen: ({ port }) => announce(port),
      },
      serve,
    );
  } else {
    // Node has no web-standard server: a bridge from node:http to the handler.
    const server = createServer(async (req, res) => {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      const abort = new AbortController();
      res.on("close", () => {
        if (!res.writableFinished) abort.abort();
      });
      const headers = new Headers();
      for (const [key, value] of Object.entries(req.headers)) {
        if (typeof value === "string") headers.set(key, value);
      }
      const response = await serve(
        new Request(`http://127.0.0.1${req.url}`, {
          method: req.method,
          headers,
          body: req.method === "POST" ? Buffer.concat(chunks) : undefined,
          signal: abort.signal,
        }),
      );
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) {
        for await (const chunk of response.body) res.write(chunk);
      }
      res.end();
    });
    server.keepAliveTimeout = 300_000;
    server.headersTimeout = 310_000;
    server.listen(0, "127.0.0.1", () => announce(server.address().port));
  }
  process.stdin.resume();
  process.stdin.on("end", () => process.exit(0));
}

const mode = process.argv[2];
if (mode === "stdio") serveStdio(build, { legacy: "reject" });
else if (mode === "http") serveHttp();
else {
  process.stderr.write("usage: sdk_echo_server.mjs stdio|http\n");
  process.exit(2);
}
