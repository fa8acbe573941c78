import type { JsonObject } from "../core/json.js";

/**
 * The device-facing sync protocol, version 1 (docs/sync-protocol.md is its specification).
 * Every message is one JSON object; the module sends a request, the hub answers with a reply.
 * A reply is either the request type's fields or `{v, err}`, where `err` starts with the `{code}`
 * the module reports (at most 253 characters, as on the hosted hub).
 *
 * A session: `hello` (the hub's time and a challenge) -> `open` (the module proves it holds its
 * key, sends its context; the hub answers with a session token, the device's environment, the
 * notefiles with changes for it and the tracker-session check) -> any number of `push`
 * (the module's changes of one notefile), `pull` + `ack` (the hub's changes of one notefile),
 * `signals` -> `close`; an `open` may carry the first `push` and the `close` (folded messages: a
 * session with one batch and nothing from the hub is one message). Firmware messages (`firmware`, `read`, `dfu`) and web requests (`web`)
 * ride on an open session too.
 */

export interface ProtocolRequest extends JsonObject {
  readonly v: number;
  readonly type: string;
}

export interface ProtocolReply extends JsonObject {
  readonly v: number;
  readonly err?: string;
}

export const MAX_ERROR_TEXT = 253;

/** Error codes a hub answers with, in braces at the start of `err`. */
export const SYNC_ERRORS = {
  /** The request is malformed or of an unknown type. */
  badRequest: "bad-request",
  /** The module speaks a protocol version the hub does not. */
  version: "protocol-version",
  /** The ProductUID belongs to no project of this hub. */
  product: "product-noexist",
  /** The device is disabled (or, on a product without auto-provisioning, not provisioned). */
  disabled: "device-disabled",
  /** The signature does not prove possession of the device's key. */
  auth: "auth",
  /**
   * The session ticket an `open` presented is refused (expired, not this hub run's, another
   * device's or key's, or over a session without TLS): prove the key again (hello, signature).
   */
  ticket: "ticket",
  /** The session token is unknown or expired: open a new session. */
  session: "session-expired",
  /** Too many hellos for the device or from the address: say hello again later. */
  rateLimited: "rate-limited",
  /** The hub failed. */
  hub: "hub-error",
} as const;

/**
 * How long the hub may hold a message by design before it answers, ms: a `signals` wait, a web
 * request's timeout (0 for the others). A link waits that long beyond its own timeout.
 */
export function replyWaitMs(message: ProtocolRequest): number {
  if (message.type === "signals" && typeof message["wait"] === "number") return message["wait"];
  if (message.type === "web" && typeof message["seconds"] === "number") return message["seconds"] * 1000;
  return 0;
}
