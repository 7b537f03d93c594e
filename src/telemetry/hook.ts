/**
 * The telemetry hooks the core calls (their contract is `_contract.ts`),
 * and their loader. This file is in the root chunk, so it stays tiny: it finds out whether tracing is wanted
 * (an explicit provider, or anything registered with the OpenTelemetry API
 * — its global registry is read, nothing is imported) and only then loads
 * `otel.ts`. With tracing off the core holds `undefined` and pays one
 * property check per request. Internal.
 *
 * @module
 */

import type { MCPTelemetryOptions } from "./types.ts";
import { OTEL_API_KEY, type Telemetry } from "./_contract.ts";
import { lazy } from "../util/lazy.ts";

export { OTEL_API_KEY };

export type {
  CallOutcome,
  ConnectionTelemetry,
  ExpectedFailure,
  SessionTelemetry,
  Telemetry,
  TracedRequest,
} from "./_contract.ts";

/** The OpenTelemetry side, loaded when tracing is first wanted. */
const otel = lazy(() => import("./otel.ts"));

/**
 * The telemetry for `options`, loaded on first need; `undefined` (at once,
 * without a promise) when it is off: `false`, or no provider given and
 * none registered with the OpenTelemetry API.
 */
export function loadTelemetry(
  options: MCPTelemetryOptions | false | undefined,
): Promise<Telemetry> | undefined {
  if (options === false) return undefined;
  if (
    options?.tracerProvider === undefined &&
    options?.meterProvider === undefined &&
    (globalThis as Record<symbol, unknown>)[OTEL_API_KEY] === undefined
  ) return undefined;
  return otel.load().then((loaded) => loaded.createTelemetry(options ?? {}));
}
