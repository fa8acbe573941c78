import type { Clock } from "../../core/Clock.js";
import { jsonByteLength, jsonRoundTrip } from "../../core/json.js";
import { startsSession, type ProtocolReply, type ProtocolRequest } from "../../protocol/messages.js";
import { FaultyHubLink, type LinkFault } from "./FaultyHubLink.js";
import { HubLinkError, type Exchanged, type HubLink } from "./HubLink.js";
import { canReachHub, type RadioConditions } from "./RadioConditions.js";

export type { LinkFault } from "./FaultyHubLink.js";

/**
 * Hands a request to a hub and returns its reply (an in-process hub, or a scripted one); `bytes`
 * is the size of the request's JSON.
 */
export type HubResponder = (request: ProtocolRequest, bytes: number) => Promise<ProtocolReply>;

/**
 * A simulated link to a hub in the same process: messages are copied as if they crossed a wire
 * (neither end can touch the other's objects), delayed by the radio's latency on the module's
 * clock, refused while the radio cannot reach the hub, and failed where a test arms a fault
 * (FaultyHubLink): before the hub sees a request, or after it acted on it with the reply lost.
 */
export class SimHubLink implements HubLink {
  readonly #respond: HubResponder;
  readonly #clock: Clock | undefined;
  readonly #radio: RadioConditions | undefined;
  readonly #faults: FaultyHubLink;
  readonly secure: boolean;

  constructor(
    respond: HubResponder,
    options: { clock?: Clock; radio?: RadioConditions; secure?: boolean } = {},
  ) {
    this.#respond = respond;
    this.secure = options.secure ?? true;
    this.#clock = options.clock;
    this.#radio = options.radio;
    this.#faults = new FaultyHubLink({ secure: this.secure, exchange: (request) => this.#deliver(request) });
  }

  /** Exchanges attempted so far (failed ones included). */
  get exchanges(): number {
    return this.#faults.exchanges;
  }

  /** Arms a fault for a coming exchange; faults fire in the order they were armed. */
  fail(fault: LinkFault): void {
    this.#faults.fail(fault);
  }

  exchange(request: ProtocolRequest): Promise<Exchanged> {
    const radio = this.#radio?.state();
    if (radio && !canReachHub(radio)) {
      const why = radio.registered ? "the hub cannot be reached" : "no network";
      return Promise.reject(new HubLinkError("unreachable", why));
    }
    // A session's first message opens the connection: a scripted connection failure refuses it.
    if (startsSession(request) && this.#radio?.connectFails?.()) {
      return Promise.reject(new HubLinkError("unreachable", "the connection to the hub failed"));
    }
    return this.#faults.exchange(request);
  }

  async #deliver(request: ProtocolRequest): Promise<Exchanged> {
    await this.#latency(this.#radio?.state().latencyMs ?? 0);
    // The bytes of the text (measured, not written); each end gets the copy parsing it would give.
    const sentBytes = jsonByteLength(request);
    const reply = await this.#respond(jsonRoundTrip(request) as ProtocolRequest, sentBytes);
    const received = jsonByteLength(reply);
    return { reply: jsonRoundTrip(reply) as ProtocolReply, sent: sentBytes, received };
  }

  #latency(ms: number): Promise<void> {
    if (!this.#clock || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => this.#clock!.setTimer(resolve, ms));
  }
}
