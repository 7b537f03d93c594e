/**
 * `mcp-adapter login` / `logout` end to end, as subprocesses, against the
 * auto-approving OAuth test server: the "browser" is a fetch of the printed
 * authorization URL and then of the loopback redirect it answers with.
 * Later `call`s use and refresh the stored tokens; `logout` deletes them.
 * The token store lives in a temporary XDG_CONFIG_HOME.
 */
import { after, afterEach, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { type OAuthTestServer, startOAuthServer } from "../_oauth_server.ts";
import { poll } from "../_helpers.ts";

const RUN_TIMEOUT_MS = 60_000;
const TEST_TIMEOUT_MS = 120_000;

function cliCommand(): { command: string; args: string[] } {
  if ("Deno" in globalThis) {
    const cli = fileURLToPath(new URL("../../cli.ts", import.meta.url));
    return { command: process.execPath, args: ["run", "-A", cli] };
  }
  const cli = fileURLToPath(
    import.meta.resolve("@cleveragents/mcp-adapter/cli"),
  );
  return { command: process.execPath, args: [cli] };
}

interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code; the group is killed past RUN_TIMEOUT_MS. */
  exited: Promise<number | null>;
}

const children = new Set<ChildProcess>();
afterEach(() => {
  for (const child of children) {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  }
  children.clear();
});

describe("mcp-adapter login / logout", () => {
  let dir: string;
  let server: OAuthTestServer;
  let env: Record<string, string | undefined>;

  function start(args: readonly string[]): Running {
    const { command, args: base } = cliCommand();
    const child = spawn(command, [...base, ...args], {
      cwd: dir,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    children.add(child);
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk) => stdout += chunk);
    child.stderr!.setEncoding("utf8").on("data", (chunk) => stderr += chunk);
    const exited = new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {
          child.kill("SIGKILL");
        }
        reject(new Error(`${args.join(" ")} timed out:\n${stderr}`));
      }, RUN_TIMEOUT_MS);
      child.on("close", (code) => {
        clearTimeout(timer);
        children.delete(child);
        resolve(code);
      });
    });
    return { child, stdout: () => stdout, stderr: () => stderr, exited };
  }

  async function run(args: readonly string[]) {
    const running = start(args);
    const code = await running.exited;
    return { code, stdout: running.stdout(), stderr: running.stderr() };
  }

  /** Waits until the login prints the authorization URL. */
  async function authorizationUrl(running: Running): Promise<URL> {
    const match = await poll(
      () =>
        /^\s+(http:\/\/\S+\/authorize\?\S+)$/m.exec(running.stderr()) ??
          undefined,
      RUN_TIMEOUT_MS,
      50,
    );
    if (match) return new URL(match[1]!);
    throw new Error(`no authorization URL printed:\n${running.stderr()}`);
  }

  /** Plays the browser: the authorization page redirects to the loopback listener. */
  async function approve(url: URL): Promise<Response> {
    const page = await fetch(url, {
      redirect: "manual",
      signal: AbortSignal.timeout(10_000),
    });
    await page.body?.cancel();
    const location = page.headers.get("location");
    assert.ok(location, `the authorization page answered ${page.status}`);
    const back = new URL(location);
    assert.equal(back.hostname, "127.0.0.1");
    assert.equal(back.pathname, "/callback");
    return await fetch(back, { signal: AbortSignal.timeout(10_000) });
  }

  const store = () => join(dir, "config", "mcp-adapter", "oauth.json");

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "mcp-cli-login-"));
    server = await startOAuthServer({ challengeScope: "mcp:tools" });
    env = {
      ...process.env,
      NO_COLOR: "1",
      XDG_CONFIG_HOME: join(dir, "config"),
      BROWSER: "none",
    };
    await writeFile(
      join(dir, "mcp.yaml"),
      [
        "servers:",
        "  - name: secured",
        "    transport: streamable-http",
        `    url: ${server.url}`,
        "    auth: oauth",
        "  - name: local",
        "    transport: stdio",
        "    command: unused",
        "    enabled: false",
        "",
      ].join("\n"),
    );
  });
  after(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("without a login, call and check fail with exit 3 and say to run login", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const check = await run(["check"]);
    assert.equal(check.code, 3, check.stderr);
    assert.match(check.stdout, /run "mcp-adapter login secured"/);
    const bad = await run(["login", "local"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /runs over stdio/);
    const unknown = await run(["login", "nope"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no server is named "nope"/);
  });

  it(
    "login runs the browser flow on a loopback listener and stores the tokens (0600, never printed); call uses and refreshes them; logout deletes them",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const login = start(["login", "secured"]);
      const url = await authorizationUrl(login);
      assert.equal(url.searchParams.get("code_challenge_method"), "S256");
      assert.equal(url.searchParams.get("scope"), "mcp:tools");
      assert.equal(url.searchParams.get("resource"), server.resource);
      const redirect = url.searchParams.get("redirect_uri")!;
      assert.match(redirect, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      const back = await approve(url);
      assert.equal(back.status, 200);
      assert.match(await back.text(), /Logged in/);
      assert.equal(await login.exited, 0, login.stderr());
      assert.match(login.stdout(), /Logged in to "secured" \(\d+ tools\)/);

      const info = await stat(store());
      if (process.platform !== "win32") {
        assert.equal(info.mode & 0o777, 0o600);
        assert.equal((await stat(join(store(), ".."))).mode & 0o077, 0);
      }
      const saved = JSON.parse(await readFile(store(), "utf8"));
      const entry = saved[server.url];
      assert.ok(entry?.tokens?.access_token, "the tokens are stored by URL");
      assert.ok(entry.client?.client_id, "the registration too");
      for (
        const secret of [entry.tokens.access_token, entry.tokens.refresh_token]
      ) {
        assert.ok(!login.stdout().includes(secret));
        assert.ok(!login.stderr().includes(secret));
      }
      // The listener is closed once the login is done.
      await assert.rejects(
        fetch(redirect, { signal: AbortSignal.timeout(5000) }),
      );

      const call = await run(["call", "secured/echo", "message=stored"]);
      assert.equal(call.code, 0, call.stderr);
      assert.match(call.stdout, /stored/);

      server.expireAccessTokens();
      const refreshed = await run(["call", "secured/echo", "message=again"]);
      assert.equal(refreshed.code, 0, refreshed.stderr);
      assert.match(refreshed.stdout, /again/);
      const after = JSON.parse(await readFile(store(), "utf8"))[server.url];
      assert.notEqual(after.tokens.access_token, entry.tokens.access_token);
      assert.notEqual(after.tokens.refresh_token, entry.tokens.refresh_token);
      assert.equal(
        server.events.filter((e) => e.kind === "authorize").length,
        1,
        "refreshed, not logged in again",
      );

      // A second login reuses the registration when its port is free.
      const again = start(["login", "secured"]);
      await approve(await authorizationUrl(again));
      assert.equal(await again.exited, 0, again.stderr());

      const logout = await run(["logout", "secured"]);
      assert.equal(logout.code, 0, logout.stderr);
      assert.match(logout.stdout, /Logged out of "secured"/);
      assert.equal(
        JSON.parse(await readFile(store(), "utf8"))[server.url],
        undefined,
      );
      const denied = await run(["call", "secured/echo", "message=x"]);
      assert.equal(denied.code, 3);
      assert.match(denied.stderr, /mcp-adapter login secured/);
      const twice = await run(["logout", "secured"]);
      assert.match(twice.stdout, /Not logged in/);
    },
  );

  it(
    "login gives up with a clear error when the browser never comes back, and closes its listener",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const login = start(["login", "secured", "--timeout", "1500"]);
      const url = await authorizationUrl(login);
      assert.equal(await login.exited, 3);
      assert.match(login.stderr(), /no login came back within 2 s/);
      await assert.rejects(
        fetch(url.searchParams.get("redirect_uri")!, {
          signal: AbortSignal.timeout(5000),
        }),
      );
    },
  );
});
