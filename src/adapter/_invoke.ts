/**
 * `invoke()` as a sequence of named stages, run once and in order, the way
 * the config loader reads (`config/load.ts`): deadline → tool → arguments
 * → validate → call → check output → envelope. A call is one object, a
 * {@linkcode ToolCall}, that goes through them: each stage either hands the
 * next what it needs or fails the call, with a {@linkcode Refused} for what
 * it found wrong itself (not found, invalid arguments, an `isError`
 * result, output that fails its schema), or with what a wait or the server
 * threw. The envelope stage words a refusal and turns either into the
 * `MCPToolResult` (`_envelope.ts`, the one classifier, loaded with the
 * first outcome); only a missing connection, a login to approve and a tool
 * held back by its pin are thrown.
 *
 * A stage with nothing to wait for runs synchronously, and one that waits
 * continues with `then`. The call is also its request's options and the
 * receiver of the response: the envelope is made as the response is read
 * and settles the caller's promise, the one promise of a call that waits
 * for nothing else (each promise and each await is an allocation and a
 * turn of the microtask queue, per call). Internal.
 *
 * @module
 */

import type { FailureContext, Refusal } from "./_envelope.ts";
import type { Connection, ToolCallOptions } from "../protocol/connection.ts";
import type { PendingRequest, Result } from "../protocol/session.ts";
import type { TaskCreated } from "../protocol/tasks/watch.ts";
import type { Durable } from "../tasks/durable.ts";
import type {
  InvokeOptions,
  MCPCallResult,
  MCPProgress,
  MCPTaskStatus,
  MCPToolDescriptor,
  MCPToolResult,
} from "../types.ts";
import { MCPTimeoutError } from "../errors.ts";
import { lazy } from "../util/lazy.ts";
import { redactError } from "../util/redact.ts";
import { checkTimeoutMs, race, tickNow } from "../util/time.ts";
import {
  type ArgumentValidator,
  validatorFor,
} from "../validation/validation.ts";
import type { ServerTools } from "./_tools.ts";

/** The envelopes and the classifier, loaded by the first call's outcome. */
const envelopes = lazy(() => import("./_envelope.ts"));
/** The output check, loaded with the first tool that declares an output schema. */
const outputCheck = lazy(() => import("../validation/output.ts"));

/** The schema checked with `validateArguments: false`: only what JSON cannot carry fails. */
const ANY_ARGUMENTS = {};

/** What a stage found wrong itself; the envelope stage words it. */
class Refused {
  constructor(readonly refusal: Refusal) {}
}

/** What the stages read of their adapter. */
export interface Caller {
  /** The server's connection. */
  connection: Connection;
  /** The server's tools. */
  tools: ServerTools;
  /** The server's name (`config.name`), for messages. */
  server: string;
  /** The default idle deadline of a call, in ms. */
  requestTimeoutMs: number;
  /** Check the arguments against the tool's `inputSchema` (`validateArguments`). */
  validateArguments: boolean;
  /** Check `structuredContent` against the tool's `outputSchema` (`validateOutput`). */
  validateOutput: boolean;
  /** What no message may contain. */
  secrets: () => readonly string[];
  /** The adapter's durable tasks (loaded on first use). */
  durable: () => Promise<Durable>;
}

/** What `invoke()` (or a resume) asks for. */
export interface CallRequest {
  name: string;
  args: unknown;
  options: InvokeOptions;
  trace?: unknown;
  resume?: MCPCallResult | undefined;
}

/**
 * Calls a tool: the stages, under a `tools/call {tool}` span when
 * telemetry is on.
 *
 * @throws {MCPConfigError} When `timeoutMs` or `totalTimeoutMs` is not a positive number.
 * @throws {MCPNotConnectedError} When not connected, or the connection drops.
 * @throws {MCPAuthorizationRequiredError} When the user must approve a login.
 * @throws {MCPToolHeldError} When the tool is held back by its pin.
 */
export function invoke(
  caller: Caller,
  request: CallRequest,
): Promise<MCPToolResult> {
  const telemetry = caller.connection.telemetry;
  return telemetry === undefined ? runCall(caller, request) : telemetry.call(
    request.name,
    (trace) => runCall(caller, { ...request, trace }),
    { args: request.args, signal: request.options.signal },
  );
}

/**
 * Runs one call through the stages and answers with its envelope; a
 * resume runs them too, untraced.
 *
 * @throws As {@linkcode invoke}.
 */
export function runCall(
  caller: Caller,
  request: CallRequest,
): Promise<MCPToolResult> {
  return new Promise((resolve, reject) =>
    new ToolCall(caller, request, resolve, reject).start()
  );
}

/**
 * One call through the stages: their state, its request options to the
 * connection, and its pending request in the session, which the response
 * settles. `timeoutMs` (the idle deadline, pushed back by progress) and
 * `totalTimeoutMs` are the session's fields, set here first.
 *
 * It implements {@linkcode PendingRequest} rather than extending it: on V8
 * a derived class's `new` costs about twice a plain class's (its `super()`
 * is a construct call of its own), once per call. The compiler holds the
 * session's fields below to the class's.
 */
class ToolCall implements PendingRequest, ToolCallOptions {
  // The session's fields, in `PendingRequest`'s order: where two kinds of
  // pending request meet (the session's own and this), V8 reads a field at
  // the same place in both with one load.
  id = 0;
  method = "";
  tracked = false;
  keep = false;
  quiet = false;
  background = false;
  timeoutMs: number;
  totalTimeoutMs: number | undefined;
  deadline = 0;
  hardDeadline = Infinity;
  onProgress: ((progress: MCPProgress) => void) | undefined;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined = undefined;
  // Its own.
  readonly caller: Caller;
  /** The tool's name, as asked. */
  readonly name: string;
  /** The arguments, as given. */
  readonly args: unknown;
  /** The telemetry parent of the call's requests. */
  readonly trace: unknown;
  /** The answer that created the task this call resumes: its arguments went out with it. */
  readonly resume: MCPCallResult | undefined;
  /** When the call started, a `performance.now()`. */
  readonly startedAt: number;
  /** Whether the call waited since `startedAt` was read. */
  waited = false;
  /** The task store's handle, once the call became a task. */
  taskHandle: Promise<{ end(error?: unknown): Promise<void> }> | undefined =
    undefined;
  /** A progress token goes out, so that progress pushes the idle deadline back. */
  readonly trackProgress = true;
  readonly onTaskStatus: ((status: MCPTaskStatus) => void) | undefined;
  /** Set when the call is sent, if it may become a task. */
  onTaskCreated: ((task: TaskCreated) => Promise<unknown>) | undefined =
    undefined;
  readonly task: boolean | undefined;
  /** The tool called, once the call stage sent it. */
  #tool: MCPToolDescriptor | undefined = undefined;
  readonly #settle: (result: MCPToolResult) => void;
  readonly #throw: (error: unknown) => void;

  /**
   * Deadline: the clock starts, the deadline options are checked.
   *
   * @throws {MCPConfigError} When `timeoutMs` or `totalTimeoutMs` is not a positive number.
   */
  constructor(
    caller: Caller,
    request: CallRequest,
    settle: (result: MCPToolResult) => void,
    fail: (error: unknown) => void,
  ) {
    const { options } = request;
    this.caller = caller;
    this.name = request.name;
    this.args = request.args;
    this.trace = request.trace;
    this.resume = request.resume;
    this.startedAt = tickNow();
    this.timeoutMs = checkTimeoutMs("timeoutMs", options.timeoutMs) ??
      caller.requestTimeoutMs;
    this.totalTimeoutMs = checkTimeoutMs(
      "totalTimeoutMs",
      options.totalTimeoutMs,
    );
    this.signal = options.signal;
    this.onProgress = options.onProgress;
    this.onTaskStatus = options.onTaskStatus;
    this.task = options.task;
    this.#settle = settle;
    this.#throw = fail;
  }

  /** Tool, then the stages after it. */
  start(): void {
    const tool = toolOf(this);
    if (tool !== undefined) this.#withTool(tool);
    else {
      lookUp(this).then(
        (tool) => this.#withTool(tool),
        (error) => this.#fail(error),
      );
    }
  }

  /** Arguments and validate, then call. */
  #withTool(tool: MCPToolDescriptor): void {
    try {
      const args = argumentsOf(this);
      const validating = validate(this, tool, args);
      if (validating === undefined) this.#call(tool, args);
      else {
        validating.then(
          () => this.#call(tool, args),
          (error) => this.#fail(error),
        );
      }
    } catch (error) {
      this.#fail(error);
    }
  }

  /**
   * Call: `tools/call` through the connection (headers, task or plain, a
   * resume), the response to {@linkcode ToolCall.prototype.resolve} or
   * {@linkcode ToolCall.prototype.reject}. A call that becomes a task is
   * written to the task store; its handle goes when the call settles, or
   * stays for a resume when the call was cut off.
   */
  #call(tool: MCPToolDescriptor, args: Record<string, unknown>): void {
    this.#tool = tool;
    const { connection } = this.caller;
    // Only a call that may become a task gets a listener for it: a closure
    // and its scope per call otherwise.
    if (!this.resume && connection.mayMakeTask) {
      this.onTaskCreated = (task) =>
        this.taskHandle = this.caller.durable().then((tasks) =>
          tasks.track(task, { name: tool.name, arguments: args }, this)
        );
    }
    try {
      // The clock was read at the start, and not since unless the call
      // waited (each read is an op on Deno).
      connection.callTool(
        tool,
        args,
        this,
        this,
        this.waited ? undefined : this.startedAt,
      );
    } catch (error) {
      this.reject(error);
    }
  }

  /** The response's result: check output, then the envelope. */
  resolve(result: Result): void {
    const taskHandle = this.taskHandle;
    // Only a call that became a task waits here, for its handle to go.
    if (taskHandle === undefined) this.#check(result as MCPCallResult);
    else {
      taskHandle.then((handle) => handle.end()).then(
        () => this.#check(result as MCPCallResult),
        (error) => this.#fail(error),
      );
    }
  }

  /** The call failed: a task's handle goes, or stays for a resume when the call was cut off. */
  reject(error: unknown): void {
    const taskHandle = this.taskHandle;
    if (taskHandle === undefined) this.#fail(error);
    else {
      taskHandle.then((handle) => handle.end(error)).then(
        () => this.#fail(error),
        (failure) => this.#fail(failure),
      );
    }
  }

  /** Check output, then the envelope. */
  #check(result: MCPCallResult): void {
    try {
      const checking = checkOutput(this, this.#tool!, result);
      if (checking === undefined) this.#succeed(result);
      else {
        checking.then(
          () => this.#succeed(result),
          (error) => this.#fail(error),
        );
      }
    } catch (error) {
      this.#fail(error);
    }
  }

  /** Envelope: the success. */
  #succeed(result: MCPCallResult): void {
    const loaded = envelopes.value;
    if (loaded !== undefined) {
      this.#settle(loaded.succeeded(result, this.startedAt));
      return;
    }
    envelopes.load().then(
      (loaded) => this.#settle(loaded.succeeded(result, this.startedAt)),
      this.#throw,
    );
  }

  /** Envelope: the failure, or what is thrown. */
  #fail(error: unknown): void {
    const loaded = envelopes.value;
    if (loaded === undefined) {
      envelopes.load().then(() => this.#fail(error), this.#throw);
      return;
    }
    try {
      this.#settle(
        loaded.callFailed(
          error instanceof Refused
            ? loaded.refused(this.name, error.refusal)
            : error,
          this.name,
          failureContext(this),
        ),
      );
    } catch (thrown) {
      this.#throw(thrown);
    }
  }
}

/**
 * Tool: the exposed tool of that name. The common case needs no wait
 * (connected, the list cached): `undefined` sends the call to
 * {@linkcode lookUp}.
 */
function toolOf(call: ToolCall): MCPToolDescriptor | undefined {
  const { connection, tools } = call.caller;
  return connection.ready ? tools.cached(call.name) : undefined;
}

/**
 * Tool, with a wait: for a (re)connect or a fresh list, which spends the
 * call's own total deadline.
 */
async function lookUp(call: ToolCall): Promise<MCPToolDescriptor> {
  const { caller, name, signal, totalTimeoutMs } = call;
  const { tools } = caller;
  call.waited = true;
  const tool = await race(tools.lookUp(name), {
    signal,
    timeoutMs: totalTimeoutMs,
    onTimeout: () =>
      new MCPTimeoutError(
        `it ran past its total deadline of ${totalTimeoutMs} ms while waiting for the connection or the tool list`,
        totalTimeoutMs!,
      ),
  });
  if (tool) return tool;
  const held = tools.heldError(name);
  if (held) throw redactError(held, caller.secrets());
  throw new Refused({
    kind: "not_found",
    server: caller.server,
    names: tools.exposedNames(),
  });
}

/** Arguments: an object of named arguments. */
function argumentsOf(call: ToolCall): Record<string, unknown> {
  const { args } = call;
  if (typeof args === "object" && args !== null && !Array.isArray(args)) {
    return args as Record<string, unknown>;
  }
  throw new Refused({ kind: "not_an_object", given: args });
}

/**
 * Validate: the arguments against the tool's `inputSchema`, with the
 * validator compiled once per schema object (a refreshed list brings new
 * objects). Building it (vetting the schema's patterns) is part of the
 * call: its deadlines hold, the idle one from now (a wait for the tool
 * list was a wait on a response), the total one from the start. A resumed
 * call's arguments went out with it; only their hash is kept. With the
 * validator compiled and the arguments valid, nothing is awaited:
 * `undefined`.
 */
function validate(
  call: ToolCall,
  tool: MCPToolDescriptor,
  args: Record<string, unknown>,
): Promise<void> | undefined {
  const validator = validatorFor(
    call.caller.validateArguments ? tool.inputSchema : ANY_ARGUMENTS,
  );
  if (validator instanceof Promise) return validateLater(call, validator, args);
  checkArguments(call, validator, args);
}

/** The arguments against the validator; a resumed call's are not checked again. */
function checkArguments(
  call: ToolCall,
  validator: ArgumentValidator,
  args: Record<string, unknown>,
): void {
  const problems = !call.resume && validator(args);
  if (problems) throw new Refused({ kind: "invalid", problems });
}

/** Validate, once the validator is built, within the call's deadlines. */
async function validateLater(
  call: ToolCall,
  building: Promise<ArgumentValidator>,
  args: Record<string, unknown>,
): Promise<void> {
  const { signal, timeoutMs, totalTimeoutMs, startedAt } = call;
  call.waited = true;
  const deadlineMs = Math.min(timeoutMs, totalTimeoutMs ?? timeoutMs);
  const validator = await race(building, {
    signal,
    timeoutMs: Math.min(
      timeoutMs,
      (totalTimeoutMs ?? Infinity) - (performance.now() - startedAt),
    ),
    onTimeout: () =>
      new MCPTimeoutError(
        `it ran past its deadline of ${deadlineMs} ms while its input schema was prepared for validation`,
        deadlineMs,
      ),
  });
  checkArguments(call, validator, args);
}

/**
 * Check output: an `isError` result is the tool's own failure; the
 * `structuredContent` of a tool that declares an `outputSchema` must match
 * it. Nothing is checked, and nothing spent, for a tool without one; the
 * check loads with the first tool that has one and, once its validator is
 * compiled, runs without a wait.
 */
function checkOutput(
  call: ToolCall,
  tool: MCPToolDescriptor,
  result: MCPCallResult,
): Promise<void> | undefined {
  if (result.isError === true) {
    throw new Refused({ kind: "tool_error", result });
  }
  const schema = tool.outputSchema;
  if (schema === undefined || !call.caller.validateOutput) return undefined;
  const check = outputCheck.value;
  return check === undefined
    ? outputCheck.load().then((check) =>
      outputMatches(check.outputProblem(schema, result), result)
    )
    : outputMatches(check.outputProblem(schema, result), result);
}

/** Refuses output that fails its schema, once the check's answer is known. */
function outputMatches(
  problem: string | undefined | Promise<string | undefined>,
  result: MCPCallResult,
): Promise<void> | undefined {
  if (problem instanceof Promise) {
    return problem.then((problem) => outputMatches(problem, result));
  }
  if (problem !== undefined) {
    throw new Refused({ kind: "output", problem, result });
  }
  return undefined;
}

function failureContext(call: ToolCall): FailureContext {
  return {
    started: call.startedAt,
    signal: call.signal,
    secrets: call.caller.secrets(),
  };
}
