/**
 * `mcp-adapter login` against a hostile authorization server
 * (`_hostile_oauth.ts`), as subprocesses: an authorization endpoint that is
 * `file:`, an unknown scheme or remote plain `http:` is neither opened nor
 * printed; a redirect with a wrong `iss`, or none though the server
 * advertises `authorization_response_iss_parameter_supported`, is refused
 * before the code is exchanged (RFC 9207); server text printed on the
 * terminal has its control characters neutralised. The "browser" is a
 * fetch of the printed URL; `$BROWSER` is a script that records what it is
 * run with. Everything stays on 127.0.0.1; `.invalid` hosts are never
 * fetched.
 */
import { after, afterEach, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { cliCommand } from "./_run.ts";
import { poll } from "../_helpers.ts";
import {
  type HostileOAuthServer,
  type HostileOptions,
  startHostileOAuthServer,
} from "../_hostile_oauth.ts";

const RUN_TIMEOUT_MS = 60_000;
const TEST_TIMEOUT_MS = 120_000;
/** Long enough that a login which waits for the browser (the bug) shows as a timeout message, not a pass. */
const LOGIN_WAIT_MS = "15000";
const ESC = "\x1b";
/** A recording `$BROWSER` needs a shell script; on Windows nothing is opened. */
const RECORDS_BROWSER = process.platform !== "win32";

interface Running {
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

const children = new Set<ChildProcess>();
const servers: HostileOAuthServer[] = [];
afterEach(async () => {
  for (const child of children) {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      child.kill("SIGKILL");
    }
  }
  children.clear();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe("mcp-adapter login against a hostile authorization server", () => {
  let dir: string;
  let browserLog: string;
  let env: Record<string, string | undefined>;
  let server: HostileOAuthServer;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "mcp-cli-login-hostile-"));
    browserLog = join(dir, "browser.log");
    let browser = "none";
    if (RECORDS_BROWSER) {
      browser = join(dir, "browser.sh");
      await writeFile(
        browser,
        `#!/bin/sh\nfor arg in "$@"; do printf '[%s]\\n' "$arg"; done >> '${browserLog}'\n`,
      );
      await chmod(browser, 0o755);
    }
    env = {
      ...process.env,
      NO_COLOR: "1",
      XDG_CONFIG_HOME: join(dir, "config"),
      BROWSER: browser,
    };
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A hostile server, and the config naming it `hostile`. */
  async function serve(options: HostileOptions): Promise<void> {
    server = await startHostileOAuthServer(options);
    servers.push(server);
    await rm(browserLog, { force: true });
    await rm(join(dir, "config"), { recursive: true, force: true });
    await writeFile(
      join(dir, "mcp.yaml"),
      [
        "servers:",
        "  - name: hostile",
        "    transport: streamable-http",
        `    url: ${server.url}`,
        "    auth: oauth",
        "",
      ].join("\n"),
    );
  }

  function login(): Running {
    const { command, args } = cliCommand();
    const child = spawn(
      command,
      [...args, "login", "hostile", "--timeout", LOGIN_WAIT_MS],
      { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"], detached: true },
    );
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
        reject(new Error(`login timed out:\n${stderr}`));
      }, RUN_TIMEOUT_MS);
      child.on("close", (code) => {
        clearTimeout(timer);
        children.delete(child);
        resolve(code);
      });
    });
    return { stdout: () => stdout, stderr: () => stderr, exited };
  }

  /** Waits until the login prints the authorization URL (or exits). */
  async function authorizationUrl(running: Running): Promise<URL> {
    let done = false;
    void running.exited.finally(() => done = true);
    // `null`: the login exited without printing one.
    const match = await poll(
      () =>
        /^\s+(https?:\/\/\S+\/authorize\?\S+)$/m.exec(running.stderr()) ??
          (done ? null : undefined),
      RUN_TIMEOUT_MS,
      50,
    );
    if (match) return new URL(match[1]!);
    throw new Error(`no authorization URL printed:\n${running.stderr()}`);
  }

  /** Plays the browser: follows the authorization page's redirect to the loopback listener. */
  async function approve(url: URL): Promise<{ back: URL; page: Response }> {
    const answer = await fetch(url, {
      redirect: "manual",
      signal: AbortSignal.timeout(10_000),
    });
    await answer.body?.cancel();
    const location = answer.headers.get("location");
    assert.ok(location, `the authorization page answered ${answer.status}`);
    const back = new URL(location);
    assert.equal(back.hostname, "127.0.0.1");
    const page = await fetch(back, { signal: AbortSignal.timeout(10_000) });
    return { back, page };
  }

  async function browserRuns(): Promise<string | undefined> {
    try {
      return await readFile(browserLog, "utf8");
    } catch {
      return undefined;
    }
  }

  async function storedTokens(): Promise<unknown> {
    try {
      const file = join(dir, "config", "mcp-adapter", "oauth.json");
      return JSON.parse(await readFile(file, "utf8"))[server.url]?.tokens;
    } catch {
      return undefined;
    }
  }

  const codeExchanges = () =>
    server.events.filter((event) =>
      event.kind === "token" && event.params.grant_type === "authorization_code"
    );

  /** Asserts a login refused after the redirect: exit 3, `message`, no exchange, no tokens, no code or state in the error. */
  async function assertRefused(
    running: Running,
    back: URL,
    page: Response,
    message: RegExp,
  ): Promise<void> {
    assert.equal(page.status, 400);
    assert.match(await page.text(), /The login failed/);
    assert.equal(await running.exited, 3, running.stderr());
    assert.match(running.stderr(), message);
    assert.deepEqual(codeExchanges(), [], "the code was never exchanged");
    assert.equal(await storedTokens(), undefined);
    // The state is in the printed authorization URL by design; the error
    // names neither it nor the code.
    const code = back.searchParams.get("code")!;
    assert.ok(!`${running.stdout()}${running.stderr()}`.includes(code));
    const error = running.stderr().slice(
      running.stderr().indexOf("mcp-adapter:"),
    );
    assert.ok(!error.includes(back.searchParams.get("state")!));
  }

  it(
    "a redirect with the issuer the metadata advertises logs in, and $BROWSER is run with the printed URL as its one argument",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      await serve({
        metadata: (document) =>
          document.authorization_response_iss_parameter_supported = true,
      });
      const running = login();
      const url = await authorizationUrl(running);
      const { back, page } = await approve(url);
      assert.equal(back.searchParams.get("iss"), server.issuer);
      assert.equal(page.status, 200);
      await page.body?.cancel();
      assert.equal(await running.exited, 0, running.stderr());
      assert.match(running.stdout(), /Logged in to "hostile"/);
      assert.equal(codeExchanges().length, 1);
      if (RECORDS_BROWSER) assert.equal(await browserRuns(), `[${url.href}]\n`);
    },
  );

  it(
    "a redirect without iss logs in when the metadata does not advertise it",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      await serve({
        redirect: (location) => location.searchParams.delete("iss"),
      });
      const running = login();
      const { page } = await approve(await authorizationUrl(running));
      await page.body?.cancel();
      assert.equal(await running.exited, 0, running.stderr());
      assert.equal(codeExchanges().length, 1);
    },
  );

  it(
    "a redirect whose iss names another issuer is refused before the code is exchanged, and its control characters are not printed",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      await serve({
        redirect: (location) =>
          location.searchParams.set("iss", `https://evil.invalid${ESC}[2J`),
      });
      const running = login();
      const { back, page } = await approve(await authorizationUrl(running));
      await assertRefused(
        running,
        back,
        page,
        /the login to "hostile" failed: OAuth: the redirect's "iss" is "https:\/\/evil\.invalid\\u001b\[2J", not the authorization server "http:\/\/127\.0\.0\.1:\d+" \(RFC 9207\); the code was not exchanged/,
      );
      assert.ok(!running.stderr().includes(ESC), "no raw escape printed");
    },
  );

  it(
    "a redirect without iss is refused before the code is exchanged when the metadata advertises authorization_response_iss_parameter_supported",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      await serve({
        metadata: (document) =>
          document.authorization_response_iss_parameter_supported = true,
        redirect: (location) => location.searchParams.delete("iss"),
      });
      const running = login();
      const { back, page } = await approve(await authorizationUrl(running));
      await assertRefused(
        running,
        back,
        page,
        /the login to "hostile" failed: OAuth: the redirect carries no "iss", though the authorization server "http:\/\/127\.0\.0\.1:\d+" says it sends one \(RFC 9207\); the code was not exchanged/,
      );
    },
  );

  it(
    "an error description with terminal escapes is printed with them neutralised",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      await serve({
        redirect: (location) => {
          location.searchParams.delete("code");
          location.searchParams.set("error", "access_denied");
          location.searchParams.set(
            "error_description",
            `${ESC}]8;;file:///etc/passwd${ESC}\\click${ESC}]8;;${ESC}\\\u202e`,
          );
        },
      });
      const running = login();
      const { page } = await approve(await authorizationUrl(running));
      await page.body?.cancel();
      assert.equal(await running.exited, 3, running.stderr());
      assert.match(
        running.stderr(),
        /the authorization server refused the login: access_denied \(\\x1b\]8;;file:\/\/\/etc\/passwd\\x1b\\click\\x1b\]8;;\\x1b\\\\u202e\)/,
      );
      assert.ok(!running.stderr().includes(ESC), "no raw escape printed");
      assert.ok(
        !running.stderr().includes("\u202e"),
        "no bidi override printed",
      );
    },
  );

  for (
    const [endpoint, shown] of [
      ["file:///etc/passwd", /its scheme "file:" is not https:/],
      ["x-mcp-evil://run/calc", /its scheme "x-mcp-evil:" is not https:/],
      [
        "http://evil.invalid/authorize",
        /"http:\/\/evil\.invalid\/authorize" is refused: it is plain http: on another machine/,
      ],
      [
        "http://127.0.0.1.evil.invalid/authorize",
        /"http:\/\/127\.0\.0\.1\.evil\.invalid\/authorize" is refused: it is plain http: on another machine/,
      ],
    ] as const
  ) {
    it(
      `an authorization endpoint ${endpoint} is neither opened nor printed, and the login fails at once`,
      { timeout: TEST_TIMEOUT_MS },
      async () => {
        await serve({
          metadata: (document) => document.authorization_endpoint = endpoint,
        });
        const running = login();
        assert.equal(await running.exited, 3, running.stderr());
        const stderr = running.stderr();
        assert.match(
          stderr,
          /the login to "hostile" failed: OAuth: the authorization_endpoint /,
        );
        assert.match(stderr, shown);
        assert.match(
          stderr,
          /only https:, or http: on this machine, is allowed/,
        );
        // Named in the refusal, never offered as the URL to open.
        assert.doesNotMatch(stderr, /Open this URL/);
        assert.equal(await browserRuns(), undefined, "$BROWSER was not run");
        assert.equal(
          server.events.filter((event) => event.kind === "authorize").length,
          0,
        );
        assert.equal(await storedTokens(), undefined);
      },
    );
  }
});
