/**
 * Windows only — the Windows CI job (.github/workflows/windows.yml) runs
 * these on windows-latest under Deno and Node; everywhere else each test is
 * skipped with the reason "Windows only". They prove on a real Windows what
 * windows_test.ts pins as decisions: a real `npx` server starts, arguments
 * round-trip unchanged through a `.cmd` (cmd.exe's parse and `%*`),
 * `disconnect()` stops the grandchildren, a crashed host's server tree
 * ends with its stdin, the child's actual environment, and the login
 * opener starting System32's rundll32 (a stub of it here).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import {
  copyFile,
  mkdir,
  mkdtemp,
  readFile,
  rm,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createInterface } from "node:readline";
import { StdioTransport } from "@cleveragents/mcp-adapter";
import { fixturePath, runtimeCommand, waitFor } from "../_helpers.ts";
import { openBrowser } from "../../src/cli/_login.ts";

const WINDOWS_ONLY = process.platform !== "win32" && "Windows only";
const ARGS_CMD = fixturePath("windows/args.cmd");
const SERVER = fixturePath("windows/server.mjs");
/** Generous: a cold `npx -y` downloads the package. */
const NPX_TIMEOUT_MS = 180_000;
const EXIT_TIMEOUT_MS = 30_000;

interface Answer {
  argv: string[];
  env: Record<string, string>;
  raw: string;
  params: unknown;
}

/** Starts a transport and collects its messages; `request()` awaits one answer. */
async function open(options: ConstructorParameters<typeof StdioTransport>[0]) {
  const transport = new StdioTransport(options);
  const messages: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  transport.onmessage = (message) => {
    messages.push(message as unknown as Record<string, unknown>);
    for (const wake of waiters.splice(0)) wake();
  };
  await transport.start();
  const next = async (
    match: (message: Record<string, unknown>) => boolean,
    timeoutMs: number,
  ): Promise<Record<string, unknown>> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = messages.find(match);
      if (found) return found;
      const left = deadline - Date.now();
      assert.ok(left > 0, `no matching message within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  };
  let id = 0;
  const request = async (
    params: Record<string, unknown> = {},
    timeoutMs = EXIT_TIMEOUT_MS,
  ) => {
    const sent = ++id;
    await transport.send({ jsonrpc: "2.0", id: sent, method: "probe", params });
    return (await next((m) => m.id === sent, timeoutMs)).result as Answer;
  };
  return { transport, request, next };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("Windows: the stdio transport on a real Windows", {
  skip: WINDOWS_ONLY,
}, () => {
  it('starts a real server with command "npx" (npx.cmd found over PATHEXT)', async () => {
    const { transport, next } = await open({
      command: "npx",
      args: [
        "-y",
        "@modelcontextprotocol/server-everything@2026.8.31",
        "stdio",
      ],
    });
    try {
      await transport.send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "windows-ci", version: "0" },
        },
      });
      const answer = await next((m) => m.id === 1, NPX_TIMEOUT_MS);
      const result = answer.result as { serverInfo?: { name?: string } };
      assert.ok(result.serverInfo?.name, JSON.stringify(answer));
    } finally {
      await transport.close();
    }
  });

  it("round-trips hostile arguments through a .cmd unchanged, running nothing", async () => {
    const marker = join(tmpdir(), `mcp-injected-${process.pid}.txt`);
    const args = [
      "plain",
      "",
      "a b",
      'say "hi"',
      "C:\\dir\\",
      `"&echo INJECTED>${marker}&"`,
      `&echo INJECTED>${marker}`,
      "%USERNAME%",
      "%PATH:~0,4%",
      "!USERNAME!",
      "^caret",
      "(paren)",
      "<nul",
      "naïve €",
    ];
    const { transport, request } = await open({ command: ARGS_CMD, args });
    try {
      const answer = await request();
      assert.deepEqual(answer.argv, args);
      await assert.rejects(readFile(marker), { code: "ENOENT" });
    } finally {
      await transport.close();
      await rm(marker, { force: true });
    }
  });

  it("passes the Windows environment, the config's Path winning, no parent secret", async () => {
    process.env.MCP_WINDOWS_CI_SECRET = "do-not-pass";
    const path = `C:\\mcp-config-path;${process.env.PATH}`;
    const { command, args } = runtimeCommand(SERVER);
    // Under Deno runtimeCommand is `deno run -A`: the server then is Deno's node compat.
    const { transport, request } = await open({
      command: "Deno" in globalThis ? "node" : command,
      args: "Deno" in globalThis ? [SERVER] : args,
      env: { Path: path, MARKER: "1" },
    });
    try {
      const { env } = await request();
      const upper = new Map(
        Object.entries(env).map(([key, value]) => [key.toUpperCase(), value]),
      );
      for (
        const key of [
          "SYSTEMROOT",
          "PATHEXT",
          "COMSPEC",
          "WINDIR",
          "TEMP",
          "TMP",
          "PROCESSOR_ARCHITECTURE",
          "USERPROFILE",
          "APPDATA",
          "LOCALAPPDATA",
        ]
      ) assert.ok(upper.get(key), `${key} missing: ${Object.keys(env)}`);
      assert.equal(upper.get("PATH"), path);
      assert.equal(upper.get("MARKER"), "1");
      assert.equal(upper.has("MCP_WINDOWS_CI_SECRET"), false);
    } finally {
      delete process.env.MCP_WINDOWS_CI_SECRET;
      await transport.close();
    }
  });

  it("writes non-ASCII as \\uXXXX on the wire, the value unchanged", async () => {
    const { transport, request } = await open({ command: ARGS_CMD });
    try {
      const text = "naïve € 日本 😀";
      const answer = await request({ text });
      assert.deepEqual(answer.params, { text });
      assert.equal(/[\u0080-\uffff]/.test(answer.raw), false, answer.raw);
    } finally {
      await transport.close();
    }
  });

  it("disconnect() stops the grandchild of a server that ignores stdin EOF (taskkill /T)", async () => {
    const { transport, next } = await open({
      command: ARGS_CMD,
      args: ["--stubborn", "--grandchild=stubborn"],
      closeTimeoutMs: 1000,
    });
    const ready = await next((m) => m.method === "ready", EXIT_TIMEOUT_MS);
    const { pid, grandchild } = ready.params as {
      pid: number;
      grandchild: number;
    };
    try {
      assert.equal(alive(grandchild), true);
      await transport.close();
      assert.ok(
        await waitFor(() => !alive(grandchild) && !alive(pid), EXIT_TIMEOUT_MS),
        `server ${pid} or grandchild ${grandchild} survived close()`,
      );
    } finally {
      for (const stray of [pid, grandchild]) {
        if (alive(stray)) process.kill(stray);
      }
    }
  });

  it("a crashed host's server and grandchild end with their stdin", async () => {
    const host = spawn(
      ...(("Deno" in globalThis
        ? [process.execPath, ["run", "-A", fixturePath("windows/host.mjs")]]
        : [process.execPath, [fixturePath("windows/host.mjs")]]) as [
          string,
          string[],
        ]),
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const lines = createInterface({ input: host.stdout! });
    const [line] = await Promise.race([
      once(lines, "line") as Promise<[string]>,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error("host did not report")), 60_000)
      ),
    ]);
    const { pid, grandchild } = JSON.parse(line) as {
      pid: number;
      grandchild: number;
    };
    try {
      // A crash: only the host dies, nothing of it runs a cleanup.
      execFileSync(
        `${process.env.SystemRoot}\\System32\\taskkill.exe`,
        ["/PID", String(host.pid), "/F"],
      );
      assert.ok(
        await waitFor(() => !alive(grandchild) && !alive(pid), EXIT_TIMEOUT_MS),
        `server ${pid} or grandchild ${grandchild} survived the host`,
      );
    } finally {
      lines.close();
      for (const stray of [pid, grandchild]) {
        if (alive(stray)) process.kill(stray);
      }
    }
  });

  it("a missing command fails with the PATH/PATHEXT hint", async () => {
    const transport = new StdioTransport({ command: "mcp-no-such-server" });
    await assert.rejects(transport.start(), /PATH.*PATHEXT|PATHEXT/);
  });
});

describe("Windows: the login opener", { skip: WINDOWS_ONLY }, () => {
  it("starts %SystemRoot%\\System32\\rundll32.exe url.dll,FileProtocolHandler <url>", async () => {
    // The stub: node.exe copied to <tmp>\System32\rundll32.exe, recording its
    // arguments through --require (NODE_OPTIONS reaches any node binary).
    const root = await mkdtemp(join(tmpdir(), "mcp-opener-"));
    try {
      await mkdir(join(root, "System32"));
      const node = "Deno" in globalThis
        ? execFileSync("where", ["node"], { encoding: "utf8" }).split(
          /\r?\n/,
        )[0]!
        : process.execPath;
      await copyFile(node, join(root, "System32", "rundll32.exe"));
      const record = join(root, "argv.json");
      const recorder = join(root, "record.cjs");
      await writeFile(
        recorder,
        `require("fs").writeFileSync(${
          JSON.stringify(record)
        }, JSON.stringify(process.argv.slice(1))); process.exit(0);`,
      );
      const url = "https://auth.example/authorize?state=%USERNAME%&x=%PATH%";
      const child = openBrowser(url, {
        platform: "win32",
        env: {
          SystemRoot: root,
          NODE_OPTIONS: `--require ${JSON.stringify(recorder)}`,
          USERNAME: "LEAKED",
        },
      });
      assert.ok(child, "no opener started");
      child.ref();
      await once(child, "exit");
      assert.deepEqual(JSON.parse(await readFile(record, "utf8")), [
        "url.dll,FileProtocolHandler",
        url,
      ]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
