/** The HTTP client both remote transports share: how `request()` reports failures and builds each attempt. */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { HttpClient } from "../../src/transports/_client.ts";

const URL_ = new URL("http://127.0.0.1:1/mcp");

/** A client over `fetch`, with optional authorization hooks. */
function client(
  fetch: (input: RequestInfo | URL, init?: RequestInit) => unknown,
  hooks: {
    getHeaders?: () => Promise<Record<string, string>>;
    authorize?: (response: Response) => Promise<boolean>;
  } = {},
): HttpClient {
  return new HttpClient(
    { url: URL_, fetch: fetch as typeof globalThis.fetch, ...hooks },
    [],
    "TestTransport",
  );
}

describe("HttpClient.request", () => {
  for (
    const [what, hooks] of [
      ["without authorization hooks", {}],
      ["with a getHeaders hook", {
        getHeaders: () => Promise.resolve({ authorization: "Bearer t" }),
      }],
    ] as const
  ) {
    it(`${what}: a fetch that throws at once rejects, never throws`, async () => {
      const http = client(() => {
        throw new Error("no network in this sandbox");
      }, hooks);
      let answer: Promise<Response> | undefined;
      assert.doesNotThrow(() => {
        answer = http.request("POST", URL_, () => ({}), "{}");
      });
      await assert.rejects(answer!, /no network in this sandbox/);
    });

    it(`${what}: headers() that throws rejects, never throws`, async () => {
      const http = client(() => Promise.resolve(new Response("{}")), hooks);
      let answer: Promise<Response> | undefined;
      assert.doesNotThrow(() => {
        answer = http.request("POST", URL_, () => {
          throw new Error("no headers today");
        });
      });
      await assert.rejects(answer!, /no headers today/);
    });

    it(`${what}: a fetch that answers with a Response, not a promise, works`, async () => {
      const http = client(() => new Response("{}", { status: 200 }), hooks);
      const response = await http.request("POST", URL_, () => ({}), "{}");
      assert.equal(response.status, 200);
      assert.equal(await response.text(), "{}");
    });
  }

  it("each attempt of an authorization retry has its own init, with the headers of its moment", async () => {
    let token = "stale";
    const seen: RequestInit[] = [];
    const http = client(
      (_input, init) => {
        seen.push(init!);
        return Promise.resolve(
          new Response(null, { status: seen.length === 1 ? 401 : 200 }),
        );
      },
      {
        getHeaders: () => Promise.resolve({ authorization: `Bearer ${token}` }),
        authorize: () => {
          token = "fresh";
          return Promise.resolve(true);
        },
      },
    );
    const response = await http.request(
      "POST",
      URL_,
      () => ({ ...http.base, "content-type": "application/json" }),
      "{}",
    );
    assert.equal(response.status, 200);
    assert.equal(seen.length, 2);
    assert.notEqual(seen[0], seen[1]);
    const authorization = (init: RequestInit) =>
      (init.headers as Record<string, string>).authorization;
    assert.equal(authorization(seen[0]!), "Bearer stale");
    assert.equal(authorization(seen[1]!), "Bearer fresh");
  });
});
