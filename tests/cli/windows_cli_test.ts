/**
 * The command line's Windows-facing behaviour that runs anywhere: the
 * token store reads (and then moves) an older version's file, its rename
 * is retried while a scanner holds the file, and the login opener starts
 * the planned program with the URL as one untouched argument (a stub
 * `$BROWSER` here; the Windows job stubs rundll32 itself).
 */
import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  mkdir,
  mkdtemp,
  readFile,
  rm,
  stat,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { once } from "node:events";
import { FileTokenStore } from "../../cli.ts";
import { renameRetrying } from "../../src/auth/file_store.ts";
import { openBrowser } from "../../src/cli/_login.ts";
import { RENAME_ATTEMPTS } from "../../src/util/windows.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "mcp-windows-cli-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function busy(code: string): Error {
  return Object.assign(new Error(`${code}: operation not permitted`), { code });
}

describe("token store migration and rename", () => {
  it("reads the older version's file until the first write, then removes it", async () => {
    const legacy = join(dir, "Roaming", "oauth.json");
    await mkdir(join(dir, "Roaming"));
    await writeFile(
      legacy,
      JSON.stringify({
        "https://a.example/mcp": { client: { client_id: "a" } },
      }),
    );
    const store = new FileTokenStore(join(dir, "Local", "oauth.json"), {
      legacyPath: legacy,
    });
    assert.deepEqual(await store.get("https://a.example/mcp"), {
      client: { client_id: "a" },
    });
    await store.set("https://b.example/mcp", { client: { client_id: "b" } });
    const moved = JSON.parse(await readFile(store.path, "utf8"));
    assert.deepEqual(Object.keys(moved).sort(), [
      "https://a.example/mcp",
      "https://b.example/mcp",
    ]);
    await assert.rejects(stat(legacy), { code: "ENOENT" });
  });

  it("prefers its own file over the older one", async () => {
    const legacy = join(dir, "old.json");
    await writeFile(legacy, JSON.stringify({ "https://old.example": {} }));
    const path = join(dir, "new.json");
    await writeFile(path, JSON.stringify({ "https://new.example": {} }));
    const store = new FileTokenStore(path, { legacyPath: legacy });
    assert.deepEqual(Object.keys(await store.read()), ["https://new.example"]);
  });

  it("retries a rename that EPERM/EBUSY block for a moment", async () => {
    const codes = ["EPERM", "EBUSY", "EACCES"];
    let calls = 0;
    await renameRetrying("a", "b", () => {
      calls++;
      const code = codes.shift();
      return code === undefined
        ? Promise.resolve()
        : Promise.reject(busy(code));
    });
    assert.equal(calls, 4);
  });

  it("gives up after a bounded number of attempts, and at once on other errors", async () => {
    let calls = 0;
    await assert.rejects(
      renameRetrying("a", "b", () => {
        calls++;
        return Promise.reject(busy("EPERM"));
      }),
      { code: "EPERM" },
    );
    assert.equal(calls, RENAME_ATTEMPTS);
    calls = 0;
    await assert.rejects(
      renameRetrying("a", "b", () => {
        calls++;
        return Promise.reject(busy("ENOENT"));
      }),
      { code: "ENOENT" },
    );
    assert.equal(calls, 1);
  });
});

describe("the login opener", {
  skip: process.platform === "win32" && "POSIX stub (a #! script)",
}, () => {
  it("starts $BROWSER with the URL as one argument, %VAR% untouched", async () => {
    const record = join(dir, "argv.txt");
    const stub = join(dir, "browser.sh");
    await writeFile(
      stub,
      `#!/bin/sh\nprintf '%s\\n' "$#" "$1" > "${record}"\n`,
      {
        mode: 0o755,
      },
    );
    const url = "https://auth.example/authorize?state=%USERNAME%&a=$HOME";
    const child = openBrowser(url, {
      env: { BROWSER: stub, USERNAME: "LEAKED", PATH: process.env.PATH },
    });
    assert.ok(child, "no opener started");
    child.ref(); // openBrowser() does not wait for it; the test does
    const [code] = await once(child, "exit");
    assert.equal(code, 0);
    assert.equal(await readFile(record, "utf8"), `1\n${url}\n`);
  });

  it("opens no http: URL of another machine", () => {
    assert.equal(
      openBrowser("http://evil.example/authorize", {
        env: { BROWSER: "/bin/false" },
      }),
      undefined,
    );
  });
});
