import type { ProtocolRequest } from "../../protocol/messages.js";
import { HubLinkError, type Exchanged, type HubLink, type HubLinkFailure } from "./HubLink.js";

/** A fault a test arms: which exchange, and whether the hub saw the request before it failed. */
export interface LinkFault {
  /** Matches the request to fail (default: the next one). */
  readonly when?: (request: ProtocolRequest) => boolean;
  /**
   * `unreachable`: the request never reaches the hub; `dropped`: the hub processes it but the
   * reply is lost; `timeout`: like dropped, reported as a timeout.
   */
  readonly failure: HubLinkFailure;
}

/**
 * Any link to a hub with faults a test arms: an exchange fails before the hub sees its request,
 * or after the hub acted on it with the reply lost. Over the in-process link and over HTTPS alike.
 */
export class FaultyHubLink implements HubLink {
  readonly #inner: HubLink;
  readonly #faults: LinkFault[] = [];
  #exchanges = 0;

  constructor(inner: HubLink) {
    this.#inner = inner;
  }

  get secure(): boolean {
    return this.#inner.secure ?? true;
  }

  /** Exchanges attempted so far (failed ones included). */
  get exchanges(): number {
    return this.#exchanges;
  }

  /** Arms a fault for a coming exchange; faults fire in the order they were armed. */
  fail(fault: LinkFault): void {
    this.#faults.push(fault);
  }

  exchange(request: ProtocolRequest): Promise<Exchanged> {
    this.#exchanges++;
    // No fault armed (the link's every exchange outside fault tests): the inner link's own promise.
    if (this.#faults.length === 0) return this.#inner.exchange(request);
    return this.#faulty(request);
  }

  async #faulty(request: ProtocolRequest): Promise<Exchanged> {
    const index = this.#faults.findIndex((f) => f.when?.(request) ?? true);
    const fault = index >= 0 ? this.#faults.splice(index, 1)[0] : undefined;
    if (fault?.failure === "unreachable") throw new HubLinkError("unreachable", "the connection failed");
    const reply = await this.#inner.exchange(request);
    if (fault) throw new HubLinkError(fault.failure, `the reply to ${request.type} was lost`);
    return reply;
  }
}
