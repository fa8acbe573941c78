import type { JsonObject } from "../core/json.js";

/**
 * The envelope of every message of the device-facing protocol (docs/sync-protocol.md): a
 * request names its `type`; a reply either carries that type's fields or an `err` whose text
 * starts with the `{codes}` the module reports, at most 253 characters as on the hosted hub.
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
