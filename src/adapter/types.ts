/**
 * The shapes of resources and prompts (`protocol/content_types.ts`), for
 * the layers above the adapter (the hub, the command line), which do not
 * reach the protocol. Types only. Internal.
 *
 * @module
 */

export * from "../protocol/content_types.ts";
