import type { ProtocolReply, ProtocolRequest } from "../../protocol/messages.js";

/**
 * The module's connection to its hub: one exchange of protocol messages at a time. At the Node
 * edge it is HTTPS to the hub (runtime/); in-process it hands the message to the very same hub
 * code without sockets (fake-clock tests, fleets). Either way the module sees only this.
 */
export interface HubLink {
  /**
   * True when the connection is encrypted (HTTPS, or in process): secure notefiles (`.qos`,
   * `.qis`, `.dbs`) move only then. Absent means true.
   */
  readonly secure?: boolean;
  /**
   * The hub's host (and port) as `hub.get` reports it when no `hub.set host` is set: the address a
   * network link reaches. Absent for a link in process (the module then reports the default host).
   */
  readonly host?: string;
  /**
   * Sends one request and resolves with the hub's reply (which may carry an `err`) and the bytes
   * both took on the wire. Rejects with a `HubLinkError` when no reply came: the connection
   * failed, timed out or was dropped.
   */
  exchange(request: ProtocolRequest): Promise<Exchanged>;
}

/** A reply and what the exchange cost: bytes of the request's and the reply's JSON. */
export interface Exchanged {
  readonly reply: ProtocolReply;
  readonly sent: number;
  readonly received: number;
}

/**
 * Why an exchange produced no reply. `unreachable`: no connection (no coverage, hub down,
 * refused); `timeout`: no reply in time; `dropped`: the connection broke after the request left,
 * so the hub may or may not have acted on it.
 */
export type HubLinkFailure = "unreachable" | "timeout" | "dropped";

export class HubLinkError extends Error {
  override readonly name = "HubLinkError";

  constructor(
    readonly failure: HubLinkFailure,
    message: string,
  ) {
    super(message);
  }
}

/** A module with no hub to reach (no `hub.set host`, no `--hub`). */
export const unconnectedHubLink: HubLink = {
  secure: false,
  exchange: () => Promise.reject(new HubLinkError("unreachable", "no hub is configured")),
};
