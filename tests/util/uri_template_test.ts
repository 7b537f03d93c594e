import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { MCPAdapterError } from "@cleveragents/mcp-adapter";
import {
  UriTemplate,
  type UriTemplateValue,
} from "../../src/util/uri_template.ts";

/** The variables of RFC 6570's examples (section 3.2; `keys` left out: no maps here). */
const RFC: Record<string, UriTemplateValue> = {
  count: ["one", "two", "three"],
  dom: ["example", "com"],
  dub: "me/too",
  hello: "Hello World!",
  half: "50%",
  var: "value",
  who: "fred",
  base: "http://example.com/home/",
  path: "/foo/bar",
  list: ["red", "green", "blue"],
  v: "6",
  x: "1024",
  y: "768",
  empty: "",
};

/**
 * RFC 6570's own examples (sections 1.2 and 3.2), each behind the scheme
 * `x:` every MCP template needs: expression → expansion.
 */
const EXAMPLES: [string, string][] = [
  ["{var}", "value"],
  ["{hello}", "Hello%20World%21"],
  ["{half}", "50%25"],
  ["O{empty}X", "OX"],
  ["{x,y}", "1024,768"],
  ["{x,hello,y}", "1024,Hello%20World%21,768"],
  ["?{x,empty}", "?1024,"],
  ["{var:3}", "val"],
  ["{var:30}", "value"],
  ["{list}", "red,green,blue"],
  ["{list*}", "red,green,blue"],
  ["{+var}", "value"],
  ["{+hello}", "Hello%20World!"],
  ["{+half}", "50%25"],
  ["{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"],
  ["{+base}index", "http://example.com/home/index"],
  ["O{+empty}X", "OX"],
  ["{+path}/here", "/foo/bar/here"],
  ["here?ref={+path}", "here?ref=/foo/bar"],
  ["up{+path}{var}/here", "up/foo/barvalue/here"],
  ["{+x,hello,y}", "1024,Hello%20World!,768"],
  ["{+path,x}/here", "/foo/bar,1024/here"],
  ["{+path:6}/here", "/foo/b/here"],
  ["{+list}", "red,green,blue"],
  ["{+list*}", "red,green,blue"],
  ["{#var}", "#value"],
  ["{#hello}", "#Hello%20World!"],
  ["{#half}", "#50%25"],
  ["foo{#empty}", "foo#"],
  ["{#x,hello,y}", "#1024,Hello%20World!,768"],
  ["{#path,x}/here", "#/foo/bar,1024/here"],
  ["{#path:6}/here", "#/foo/b/here"],
  ["{#list}", "#red,green,blue"],
  ["{#list*}", "#red,green,blue"],
  ["{.who}", ".fred"],
  ["{.who,who}", ".fred.fred"],
  ["{.half,who}", ".50%25.fred"],
  ["www{.dom*}", "www.example.com"],
  ["X{.var}", "X.value"],
  ["X{.empty}", "X."],
  ["X{.var:3}", "X.val"],
  ["X{.list}", "X.red,green,blue"],
  ["X{.list*}", "X.red.green.blue"],
  ["{/who}", "/fred"],
  ["{/who,who}", "/fred/fred"],
  ["{/half,who}", "/50%25/fred"],
  ["{/who,dub}", "/fred/me%2Ftoo"],
  ["{/var}", "/value"],
  ["{/var,empty}", "/value/"],
  ["{/var,x}/here", "/value/1024/here"],
  ["{/var:1,var}", "/v/value"],
  ["{/list}", "/red,green,blue"],
  ["{/list*}", "/red/green/blue"],
  ["{/list*,path:4}", "/red/green/blue/%2Ffoo"],
  ["{;who}", ";who=fred"],
  ["{;half}", ";half=50%25"],
  ["{;empty}", ";empty"],
  ["{;v,empty,who}", ";v=6;empty;who=fred"],
  ["{;x,y}", ";x=1024;y=768"],
  ["{;x,y,empty}", ";x=1024;y=768;empty"],
  ["{;hello:5}", ";hello=Hello"],
  ["{;list}", ";list=red,green,blue"],
  ["{;list*}", ";list=red;list=green;list=blue"],
  ["{?who}", "?who=fred"],
  ["{?half}", "?half=50%25"],
  ["{?x,y}", "?x=1024&y=768"],
  ["{?x,y,empty}", "?x=1024&y=768&empty="],
  ["{?var:3}", "?var=val"],
  ["{?list}", "?list=red,green,blue"],
  ["{?list*}", "?list=red&list=green&list=blue"],
  ["?fixed=yes{&x}", "?fixed=yes&x=1024"],
  ["{&who}", "&who=fred"],
  ["{&half}", "&half=50%25"],
  ["{&x,y,empty}", "&x=1024&y=768&empty="],
  ["{&var:3}", "&var=val"],
  ["{&list}", "&list=red,green,blue"],
  ["{&list*}", "&list=red&list=green&list=blue"],
];

/** The RFC variables a template uses. */
function valuesFor(template: UriTemplate): Record<string, UriTemplateValue> {
  return Object.fromEntries(
    template.variables.map((name) => [name, RFC[name]!]),
  );
}

function rejects(run: () => unknown, pattern: RegExp): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof MCPAdapterError, String(error));
    assert.equal(error.code, "invalid_argument");
    assert.match(error.message, pattern);
    return true;
  });
}

describe("UriTemplate", () => {
  it("expands every example of RFC 6570 as the RFC does", () => {
    for (const [expression, expected] of EXAMPLES) {
      const template = new UriTemplate(`x:${expression}`);
      assert.equal(
        template.expand(valuesFor(template)),
        `x:${expected}`,
        expression,
      );
    }
  });

  it("names the variables, and which may be left out", () => {
    const template = new UriTemplate(
      "demo://resource/{kind}/{+path}{?page,size}{&page}",
    );
    assert.deepEqual(template.variables, ["kind", "path", "page", "size"]);
    assert.deepEqual([...template.optional], ["page", "size"]);
    assert.equal(
      template.expand({ kind: "text", path: "a/b" }),
      "demo://resource/text/a/b",
    );
  });

  it("refuses a missing, unknown or ill-typed variable, naming it", () => {
    const template = new UriTemplate("demo://resource/{id}");
    rejects(() => template.expand({}), /give "id"/);
    rejects(
      () => template.expand({ id: "1", other: "2" }),
      /no variable "other" \(its variables: id\)/,
    );
    rejects(
      () => template.expand({ id: 3 as unknown as string }),
      /"id" must be a string/,
    );
    rejects(
      () => template.expand({ id: "\ud800" }),
      /well-formed Unicode/,
    );
    rejects(() => template.expand({ id: "x".repeat(5000) }), /at most 4096/);
  });

  it("refuses a template that is not RFC 6570, or names no scheme", () => {
    rejects(() => new UriTemplate("demo://{id"), /never closes/);
    rejects(() => new UriTemplate("demo://{a-b}"), /"a-b" is not a variable/);
    rejects(() => new UriTemplate("demo://a b/{id}"), /a space/);
    rejects(() => new UriTemplate("{+base}/x"), /does not start with a scheme/);
    rejects(
      () => new UriTemplate(`demo://${"{a}".repeat(65)}`),
      /more than 64 expressions/,
    );
  });

  it("keeps the scheme and host the template spells, whatever the values", () => {
    const api = new UriTemplate("https://api.example.com{+path}");
    assert.equal(api.expand({ path: "/v1/x" }), "https://api.example.com/v1/x");
    rejects(
      () => api.expand({ path: ".evil.com/x" }),
      /change the host it names \("api.example.com.evil.com"\)/,
    );
    rejects(() => api.expand({ path: "@evil.com/x" }), /change the host/);
    rejects(() => api.expand({ path: ":1@evil.com" }), /change the host/);
    // No authority in the template: none may appear.
    const opaque = new UriTemplate("demo:{+rest}");
    assert.equal(opaque.expand({ rest: "a/b" }), "demo:a/b");
    rejects(() => opaque.expand({ rest: "//evil.com/x" }), /change the host/);
    // A simple expression encodes what would leave its place.
    const file = new UriTemplate("file:///{path}");
    assert.equal(file.expand({ path: "../x" }), "file:///..%2Fx");
    // A host label may vary; the rest of the host may not.
    const tenant = new UriTemplate("https://{tenant}.example.com/{id}");
    assert.equal(
      tenant.expand({ tenant: "acme", id: "1" }),
      "https://acme.example.com/1",
    );
    assert.equal(
      tenant.expand({ tenant: "evil.com/", id: "1" }),
      "https://evil.com%2F.example.com/1",
    );
  });
});
