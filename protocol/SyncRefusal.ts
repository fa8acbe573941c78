import { MAX_ERROR_TEXT, type ProtocolReply } from "./envelope.js";
import { PROTOCOL_VERSION } from "./version.js";

/**
 * Why the hub refuses a sync message, as the protocol says it: a code of `SYNC_ERRORS` and words.
 * The service answers it as `{v, err: "{code} text"}` (at most 253 characters, code first).
 */
export class SyncRefusal extends Error {
  override readonly name = "SyncRefusal";

  constructor(
    readonly code: string,
    readonly text: string,
  ) {
    super(`{${code}} ${text}`);
  }

  reply(): ProtocolReply {
    return refusal(this.code, this.text);
  }
}

/** A protocol error reply: `{code}` first, the whole text cut to MAX_ERROR_TEXT characters. */
export function refusal(code: string, text: string): ProtocolReply {
  const err = `{${code}} ${text}`;
  return {
    v: PROTOCOL_VERSION,
    err: err.length > MAX_ERROR_TEXT ? `${err.slice(0, MAX_ERROR_TEXT - 1)}…` : err,
  };
}
