import type { Clock } from "../../core/Clock.js";
import type { ProtocolReply, ProtocolRequest } from "../../protocol/messages.js";
import { HubLinkError, type HubLink, type HubLinkFailure } from "./HubLink.js";
import { canReachHub, type RadioConditions } from "./RadioConditions.js";

/** Hands a request to a hub and returns its reply (an in-process hub, or a scripted one). */
export type HubResponder = (request: ProtocolRequest) => Promise<ProtocolReply>;

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
 * A simulated link to a hub: messages are copied as if they crossed a wire (neither end can
 * touch the other's objects), delayed by the radio's latency on the module's clock, refused
 * while the radio cannot reach the hub, and failed where a test arms a fault: before the hub
 * sees a request, or after it acted on it with the reply lost.
 */
export class SimHubLink implements HubLink {
  readonly #respond: HubResponder;
  readonly #clock: Clock | undefined;
  readonly #radio: RadioConditions | undefined;
  readonly #faults: LinkFault[] = [];
  readonly secure: boolean;
  #exchanges = 0;

  constructor(
    respond: HubResponder,
    options: { clock?: Clock; radio?: RadioConditions; secure?: boolean } = {},
  ) {
    this.#respond = respond;
    this.secure = options.secure ?? true;
    this.#clock = options.clock;
    this.#radio = options.radio;
  }

  /** Exchanges attempted so far (failed ones included). */
  get exchanges(): number {
    return this.#exchanges;
  }

  /** Arms a fault for a coming exchange; faults fire in the order they were armed. */
  fail(fault: LinkFault): void {
    this.#faults.push(fault);
  }

  async exchange(request: ProtocolRequest): Promise<ProtocolReply> {
    this.#exchanges++;
    const radio = this.#radio?.state();
    if (radio && !canReachHub(radio)) {
      throw new HubLinkError("unreachable", radio.registered ? "the hub cannot be reached" : "no network");
    }
    const index = this.#faults.findIndex((f) => f.when?.(request) ?? true);
    const fault = index >= 0 ? this.#faults.splice(index, 1)[0] : undefined;
    if (fault?.failure === "unreachable") throw new HubLinkError("unreachable", "the connection failed");
    await this.#latency(radio?.latencyMs ?? 0);
    const reply = await this.#respond(wire(request));
    if (fault) throw new HubLinkError(fault.failure, `the reply to ${request.type} was lost`);
    return wire(reply);
  }

  #latency(ms: number): Promise<void> {
    if (!this.#clock || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => this.#clock!.setTimer(resolve, ms));
  }
}

/** A message as the other end receives it: its JSON text parsed again. */
function wire<T>(message: T): T {
  return JSON.parse(JSON.stringify(message)) as T;
}
