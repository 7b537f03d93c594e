/**
 * The `mcp-adapter` command line under signals and closed pipes, run as a
 * subprocess against a stubborn server (it ignores stdin EOF and SIGTERM, so
 * stopping it takes seconds): whatever arrives, a second Ctrl-C during the
 * cleanup, SIGTERM, a reader of stdout or stderr that went away, no server
 * outlives the command line, and no stack trace is printed.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { cliCommand } from "./_run.ts";
import {
  fixturePath,
  pidAlive,
  releaseAfterEach,
  runtimeCommand,
  waitFor,
} from "../_helpers.ts";

const TEST_TIMEOUT_MS = 90_000;
/** Long enough for a CLI and a server to start on a busy machine. */
const STARTED_MS = 45_000;
const hostile = runtimeCommand(
  fixturePath(
    `cli_hostile_server${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`,
  ),
);

/** A started command line: its process, what it printed, how it ended. */
interface Started {
  pid: number;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: string | null }>;
}

describe("mcp-adapter (the command line): signals and pipes", () => {
  const cleanups = releaseAfterEach();

  /**
   * A folder with a config of one stubborn server whose status file it
   * returns; removed after the test, the server killed if it survived.
   */
  async function stubbornServer(): Promise<
    { config: string; status: string; serverPid: () => Promise<number> }
  > {
    const dir = await mkdtemp(join(tmpdir(), "mcp-cli-signals-"));
    const status = join(dir, "status");
    const config = join(dir, "servers.json");
    await writeFile(status, "");
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          h: {
            command: hostile.command,
            args: [...hostile.args, status, "stubborn"],
          },
        },
      }),
    );
    let pid: number | undefined;
    cleanups.push(async () => {
      if (pid !== undefined && pidAlive(pid)) process.kill(pid, "SIGKILL");
      await rm(dir, { recursive: true, force: true });
    });
    return {
      config,
      status,
      async serverPid() {
        await waitForStatus(status, /^pid \d+$/m);
        pid = Number(/^pid (\d+)$/m.exec(await readFile(status, "utf8"))![1]);
        return pid;
      },
    };
  }

  /** Starts the command line in its own process group, as a shell would. */
  function start(
    args: readonly string[],
    close: { stdout?: boolean; stderr?: boolean } = {},
  ): Started {
    const { command, args: base } = cliCommand();
    const child = spawn(command, [...base, ...args], {
      env: { ...process.env, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stderr = "";
    child.stderr!.setEncoding("utf8").on("data", (chunk) => stderr += chunk);
    child.stdout!.resume();
    // The reader goes away (`| head` done, `| cat` ended by the Ctrl-C).
    if (close.stdout) child.stdout!.destroy();
    if (close.stderr) child.stderr!.destroy();
    const exited = new Promise<{ code: number | null; signal: string | null }>(
      (resolve) =>
        child.on("exit", (code, signal) => resolve({ code, signal })),
    );
    let done = false;
    void exited.then(() => done = true);
    cleanups.push(async () => {
      if (done) return;
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
      await exited;
    });
    return { pid: child.pid!, stderr: () => stderr, exited };
  }

  /** Ctrl-C on a terminal: SIGINT to the foreground process group. */
  function interrupt(cli: Started, signal: NodeJS.Signals = "SIGINT"): void {
    process.kill(-cli.pid, signal);
  }

  async function assertServerGone(pid: number): Promise<void> {
    assert.ok(
      await waitFor(() => !pidAlive(pid), 3000),
      `the server (pid ${pid}) outlived the command line`,
    );
  }

  function assertNoStackTrace(stderr: string): void {
    assert.doesNotMatch(stderr, /Uncaught|EPIPE|^\s+at /m, stderr);
  }

  it(
    "a second Ctrl-C during the cleanup of the first still stops the server: exit 130",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const server = await stubbornServer();
      const cli = start(["call", "h/hang", "--config", server.config]);
      const pid = await server.serverPid();
      await waitForStatus(server.status, /^called$/m);
      interrupt(cli);
      // The cleanup has begun: the server's stdin was closed (it stays).
      await waitForStatus(server.status, /^eof$/m);
      interrupt(cli);
      const { code } = await cli.exited;
      await assertServerGone(pid);
      assert.equal(code, 130, cli.stderr());
      assert.match(cli.stderr(), /^mcp-adapter: interrupted\n$/m);
      assertNoStackTrace(cli.stderr());
    },
  );

  it("Ctrl-C while stderr's reader is gone still stops the server: exit 130", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const server = await stubbornServer();
    const cli = start(["call", "h/hang", "--config", server.config], {
      stderr: true,
    });
    const pid = await server.serverPid();
    await waitForStatus(server.status, /^called$/m);
    interrupt(cli);
    const { code } = await cli.exited;
    await assertServerGone(pid);
    assert.equal(code, 130);
  });

  it(
    "tools whose stdout reader is gone (| head) ends quietly: exit 0, server stopped",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const server = await stubbornServer();
      const cli = start(["tools", "--config", server.config], { stdout: true });
      const pid = await server.serverPid();
      const { code } = await cli.exited;
      await assertServerGone(pid);
      assert.equal(code, 0, cli.stderr());
      assert.equal(cli.stderr(), "");
    },
  );

  it("SIGTERM stops the server too: exit 143", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const server = await stubbornServer();
    const cli = start(["call", "h/hang", "--config", server.config]);
    const pid = await server.serverPid();
    await waitForStatus(server.status, /^called$/m);
    interrupt(cli, "SIGTERM");
    const { code } = await cli.exited;
    await assertServerGone(pid);
    assert.equal(code, 143, cli.stderr());
    assertNoStackTrace(cli.stderr());
  });
});

/** Waits until the server's status file has a line matching `pattern`. */
async function waitForStatus(file: string, pattern: RegExp): Promise<void> {
  const seen = await waitFor(
    async () => pattern.test(await readFile(file, "utf8")),
    STARTED_MS,
  );
  assert.ok(seen, `the server never wrote ${pattern} to ${file}`);
}
