import type { JsonObject } from "../core/json.js";
import type { ProtocolReply, ProtocolRequest } from "./envelope.js";
import type { DeviceEnvironment } from "./sessionMessages.js";

export interface SignalRecord extends JsonObject {
  readonly seq: number;
  readonly body: JsonObject;
  /** Epoch seconds the signal was sent. */
  readonly time: number;
}

/**
 * Takes the signals after `after` (acknowledging every one up to it). With `wait` (ms), a hub
 * holding none answers when one arrives or a notefile changes for the device, or when the wait
 * is over (continuous mode).
 */
export interface SignalsRequest extends ProtocolRequest {
  readonly type: "signals";
  readonly token: string;
  readonly after: number;
  readonly wait?: number;
}

export interface SignalsReply extends ProtocolReply {
  readonly signals: readonly SignalRecord[];
  /** Notefiles that changed for the module meanwhile. */
  readonly files: readonly string[];
  /**
   * The device's environment as the hub resolves it now (as in `open`): a variable changed on
   * the hub reaches a session held open. Hubs before it was added leave it out.
   */
  readonly env?: DeviceEnvironment;
}
