import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type {
  MCPToolDescriptor,
  MCPToolResult,
} from "@cleveragents/mcp-adapter";
import {
  type ApprovalRequest,
  modelTools,
} from "@cleveragents/mcp-adapter/models";
import { type FakeInvoke, registeredTool, registryOf } from "./_tools.ts";

const PNG = "iVBORw0KGgo=";
const TOOLS: MCPToolDescriptor[] = [
  {
    name: "get_note",
    description: "Read a note",
    inputSchema: {
      type: "object",
      properties: { id: { type: "number" }, format: { type: "string" } },
      required: ["id"],
    },
  },
  {
    name: "delete_note",
    description: "Delete a note",
    inputSchema: {
      type: "object",
      properties: { id: { type: "number" } },
      required: ["id"],
    },
  },
  {
    name: "snapshot",
    description: "Take a picture",
    inputSchema: { type: "object" },
  },
];

function calls(): {
  log: Array<[string, Record<string, unknown>]>;
  invoke: FakeInvoke;
} {
  const log: Array<[string, Record<string, unknown>]> = [];
  const invoke: FakeInvoke = (name, args): MCPToolResult => {
    log.push([name, args]);
    if (name === "snapshot") {
      return {
        success: true,
        data: {
          content: [
            { type: "text", text: "two pictures" },
            { type: "image", data: PNG, mimeType: "image/png" },
            { type: "image", data: PNG, mimeType: "image/bmp" },
          ],
        },
        error: null,
        durationMs: 1,
      };
    }
    if (args.id === 404) {
      return {
        success: false,
        data: {
          isError: true,
          content: [{ type: "text", text: "no such note" }],
        },
        error: `Tool "${name}" reported a server error: no such note`,
        errorKind: "server_error",
        durationMs: 1,
      };
    }
    return {
      success: true,
      data: {
        content: [{ type: "text", text: `note ${args.id}` }],
        structuredContent: { id: args.id, title: "Groceries" },
      },
      error: null,
      durationMs: 1,
    };
  };
  return { log, invoke };
}

describe("dispatch()", () => {
  it("answers an OpenAI chat call, dropping the nulls strict mode made the model send", async () => {
    const { log, invoke } = calls();
    const tools = modelTools(registryOf("notes", TOOLS, invoke), "openai-chat");
    const messages = await tools.dispatch({
      id: "call_1",
      type: "function",
      function: {
        name: "notes__get_note",
        arguments: '{"id": 2, "format": null}',
      },
    });
    assert.deepEqual(log, [["get_note", { id: 2 }]]);
    assert.deepEqual(messages, [{
      role: "tool",
      tool_call_id: "call_1",
      content: "note 2",
    }]);
  });

  it("turns bad JSON into an error result quoting the arguments", async () => {
    const { log, invoke } = calls();
    const tools = modelTools(
      registryOf("notes", TOOLS, invoke),
      "openai-responses",
    );
    const output = await tools.dispatch({
      type: "function_call",
      call_id: "c1",
      name: "notes__get_note",
      arguments: '{"id": 2,,}',
    });
    assert.equal(output.call_id, "c1");
    assert.match(
      String(output.output),
      /^The arguments for tool "notes__get_note" are not valid JSON \(.+\): "\{\\"id\\": 2,,\}"\. Send the arguments as one JSON object/,
    );
    assert.deepEqual(log, []);
  });

  it("refuses arguments that are not an object", async () => {
    const tools = modelTools(registryOf("notes", TOOLS), "anthropic");
    const result = await tools.dispatch({
      type: "tool_use",
      id: "t",
      name: "notes__get_note",
      input: [1, 2],
    });
    assert.equal(result.is_error, true);
    assert.match(
      result.content[0]!.type === "text" ? result.content[0]!.text : "",
      /must be a JSON object of named arguments, got an array/,
    );
  });

  it("suggests the nearest name for an unknown tool", async () => {
    const tools = modelTools(registryOf("notes", TOOLS), "gemini");
    const part = await tools.dispatch({
      id: "g1",
      name: "get_note",
      args: { id: 1 },
    });
    assert.deepEqual(Object.keys(part.functionResponse.response), ["error"]);
    assert.match(
      String(part.functionResponse.response.error),
      /^Unknown tool "get_note"\. Did you mean "notes__get_note"\? Call one of the tools you were given: notes__delete_note, notes__get_note, notes__snapshot\.$/,
    );
    assert.equal(part.functionResponse.id, "g1");
    assert.equal(part.functionResponse.name, "get_note");
  });

  it("accepts the registry name as well as the alias", async () => {
    const tools = modelTools(
      registryOf("notes", TOOLS, calls().invoke),
      "gemini",
    );
    const part = await tools.dispatch({
      name: "notes/get_note",
      args: { id: 7 },
    });
    // `content` is the model's form; `structuredContent` is not sent twice.
    assert.deepEqual(part.functionResponse.response, { output: "note 7" });
  });

  it("gives Gemini one name per tool: a call never runs another tool", async () => {
    // Aliases of 64 characters that differ only in their last one, in a
    // namespace Gemini's rule makes `_`-prefixed.
    const base = "x".repeat(64 - "9ns__".length - 1);
    const ran: string[] = [];
    const registry = registryOf("9ns", [
      {
        name: `${base}a`,
        description: "Reads",
        inputSchema: { type: "object" },
      },
      {
        name: `${base}b`,
        description: "Deletes",
        inputSchema: { type: "object" },
      },
    ], (tool) => {
      ran.push(tool);
      return Promise.resolve({
        success: true,
        data: { content: [{ type: "text", text: tool }] },
        error: null,
        durationMs: 0,
      });
    });
    const tools = modelTools(registry, "gemini");
    const names = tools.definitions[0]!.functionDeclarations!.map((
      declaration,
    ) => declaration.name!);
    assert.equal(new Set(names).size, 2, JSON.stringify(names));
    for (const name of names) {
      assert.match(name, /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/);
      await tools.dispatch({ name, args: {} });
    }
    assert.deepEqual(ran, [`${base}a`, `${base}b`]);
  });

  it("declares a name two tools of a list would share once, and says so", () => {
    const tool = (description: string) =>
      registeredTool("s", {
        name: "a",
        description,
        inputSchema: { type: "object" },
      });
    // Not a registry: nothing checked that the aliases differ.
    const tools = modelTools(
      [tool("first"), tool("second")],
      "anthropic",
    );
    assert.deepEqual(
      tools.definitions.map((definition) =>
        "description" in definition ? definition.description : undefined
      ),
      ["first"],
    );
    assert.match(
      tools.report.find((entry) => entry.omitted)!.omitted!,
      /^left out: its name for this API, "s__a", is that of tool "s\/a" too$/,
    );
  });

  it("marks tool failures as errors and never throws", async () => {
    const { invoke } = calls();
    const registry = registryOf("notes", TOOLS, invoke);
    const anthropic = modelTools(registry, "anthropic");
    const result = await anthropic.dispatch({
      type: "tool_use",
      id: "t1",
      name: "notes__get_note",
      input: { id: 404 },
    });
    assert.deepEqual(result, {
      type: "tool_result",
      tool_use_id: "t1",
      content: [{
        type: "text",
        text: 'Tool "get_note" reported a server error: no such note',
      }],
      is_error: true,
    });
    const throwing = registryOf("notes", TOOLS, () => {
      throw new Error('Not connected to MCP server "notes"');
    });
    const reply = await modelTools(throwing, "openai-chat").dispatch({
      id: "c",
      type: "function",
      function: { name: "notes__get_note", arguments: '{"id":1}' },
    });
    assert.match(
      reply[0]!.content as string,
      /^Tool "notes__get_note" could not be called: Not connected/,
    );
  });

  it("uses the registry's current tool, and says when it is gone", async () => {
    const registry = registryOf("notes", TOOLS);
    const tools = modelTools(registry, "anthropic");
    registry.unregister("notes/get_note");
    const result = await tools.dispatch({
      type: "tool_use",
      id: "t",
      name: "notes__get_note",
      input: { id: 1 },
    });
    assert.equal(result.is_error, true);
    assert.match(JSON.stringify(result.content), /is no longer available/);
  });
});

describe("the approval hook", () => {
  it("is asked before writing tools only, and a refusal reaches the model as a declined result", async () => {
    const { log, invoke } = calls();
    const asked: ApprovalRequest[] = [];
    const tools = modelTools(registryOf("notes", TOOLS, invoke), "anthropic", {
      approve: (request) => {
        asked.push(request);
        return false;
      },
    });
    const reply = await tools.dispatchAll([
      { type: "tool_use", id: "a", name: "notes__get_note", input: { id: 1 } },
      {
        type: "tool_use",
        id: "b",
        name: "notes__delete_note",
        input: { id: 1 },
      },
    ]);
    assert.deepEqual(
      asked.map((request) => [request.tool.name, request.name, request.args]),
      [
        ["notes/delete_note", "notes__delete_note", { id: 1 }],
      ],
    );
    assert.deepEqual(log, [["get_note", { id: 1 }]]);
    assert.equal(reply.role, "user");
    assert.equal(reply.content[0]!.is_error, undefined);
    assert.equal(reply.content[1]!.is_error, true);
    assert.match(
      JSON.stringify(reply.content[1]!.content),
      /The user declined to run tool \\"notes__delete_note\\", which changes data\. Do not call it again unless the user asks/,
    );
  });

  it("is asked before every tool with approveAll, per call options override the defaults, and a throwing hook refuses", async () => {
    const { log, invoke } = calls();
    const tools = modelTools(
      registryOf("notes", TOOLS, invoke),
      "openai-responses",
      {
        approve: () => true,
      },
    );
    const outputs = await tools.dispatchAll([
      {
        type: "function_call",
        call_id: "1",
        name: "notes__get_note",
        arguments: '{"id":1}',
      },
    ], {
      approveAll: true,
      approve: async () => {
        await Promise.resolve();
        throw new Error("no terminal");
      },
    });
    assert.deepEqual(log, []);
    assert.match(
      String(outputs[0]!.output),
      /declined.*\(the approval check failed: no terminal\)/,
    );
    await tools.dispatch({
      type: "function_call",
      call_id: "2",
      name: "notes__delete_note",
      arguments: '{"id":1}',
    });
    assert.deepEqual(log, [["delete_note", { id: 1 }]]);
  });

  it("declines an AI SDK call with execution-denied", async () => {
    const tools = modelTools(registryOf("notes", TOOLS), "ai-sdk", {
      approve: () => false,
    });
    const part = await tools.dispatch({
      toolCallId: "x",
      toolName: "notes__delete_note",
      input: { id: 1 },
    });
    assert.equal(part.output.type, "execution-denied");
    const tool = tools.definitions["notes__delete_note"]!;
    const output = await tool.execute({ id: 1 }, { toolCallId: "y" });
    assert.equal(output.status, "declined");
    assert.equal(tool.toModelOutput({ output }).type, "execution-denied");
  });
});

describe("images", () => {
  const snapshot = () => registryOf("cam", TOOLS, calls().invoke);

  it("OpenAI chat: a user message with the images follows all tool messages of the turn", async () => {
    const tools = modelTools(snapshot(), "openai-chat");
    const turn = await tools.dispatchAll([
      {
        id: "1",
        type: "function",
        function: { name: "cam__snapshot", arguments: "" },
      },
      {
        id: "2",
        type: "function",
        function: { name: "cam__get_note", arguments: '{"id":3}' },
      },
    ]);
    assert.deepEqual(turn.map((message) => message.role), [
      "tool",
      "tool",
      "user",
    ]);
    assert.match(
      String(turn[0]!.content),
      /2 image\(s\) follow in the next user message/,
    );
    assert.deepEqual(turn[2]!.content, [
      { type: "text", text: "Images returned by tool cam__snapshot (call 1):" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
      { type: "image_url", image_url: { url: `data:image/bmp;base64,${PNG}` } },
    ]);
  });

  it("OpenAI responses: input_image parts", async () => {
    const tools = modelTools(snapshot(), "openai-responses");
    const output = await tools.dispatch({
      type: "function_call",
      call_id: "1",
      name: "cam__snapshot",
      arguments: "{}",
    });
    assert.deepEqual(output.output, [
      { type: "input_text", text: "two pictures" },
      { type: "input_image", image_url: `data:image/png;base64,${PNG}` },
      { type: "input_image", image_url: `data:image/bmp;base64,${PNG}` },
    ]);
  });

  it("Anthropic: base64 image blocks for the types it takes, a note for others", async () => {
    const tools = modelTools(snapshot(), "anthropic");
    const result = await tools.dispatch({
      type: "tool_use",
      id: "1",
      name: "cam__snapshot",
      input: {},
    });
    assert.deepEqual(result.content, [
      { type: "text", text: "two pictures" },
      {
        type: "image",
        source: { type: "base64", media_type: "image/png", data: PNG },
      },
      {
        type: "text",
        text: "[image omitted: image/bmp is not a type the model accepts]",
      },
    ]);
  });

  it("Gemini: inlineData parts of the function response", async () => {
    const tools = modelTools(snapshot(), "gemini");
    const turn = await tools.dispatchAll([{ name: "cam__snapshot" }]);
    assert.equal(turn.role, "user");
    const response = turn.parts[0]!.functionResponse;
    assert.deepEqual(response.response, { output: "two pictures" });
    assert.deepEqual(response.parts?.[0], {
      inlineData: { mimeType: "image/png", data: PNG },
    });
  });

  it("AI SDK: file content parts", async () => {
    const tools = modelTools(snapshot(), "ai-sdk");
    const part = await tools.dispatch({
      toolCallId: "1",
      toolName: "cam__snapshot",
      input: {},
    });
    assert.deepEqual(part.output, {
      type: "content",
      value: [
        { type: "text", text: "two pictures" },
        {
          type: "file",
          mediaType: "image/png",
          data: { type: "data", data: PNG },
        },
        {
          type: "file",
          mediaType: "image/bmp",
          data: { type: "data", data: PNG },
        },
      ],
    });
  });
});
