import type { Clock } from "../../core/Clock.js";
import { SerialSession, type LineHandler } from "../../firmware/host/SerialSession.js";
import type { LinkCapture } from "../capture/LinkCapture.js";
import { BaudPacer } from "../impair/BaudPacer.js";
import { buildImpairments, type Direction, type LinkImpairmentSpec } from "../impair/Impairments.js";
import type { ImpairmentEvent } from "../impair/ImpairmentEvent.js";
import type { LinkOutage } from "../impair/LinkOutage.js";
import { Stall } from "../impair/Stall.js";
import type { ByteLink } from "./ByteLink.js";
import { TapStage, type ByteStage } from "../stages/ByteStage.js";
import { isBinaryPut } from "./isBinaryPut.js";
import { observeLines } from "./lineReplies.js";
import { SimUartReceiver, type SimUartReceiverOptions } from "./SimUartReceiver.js";
import { StagedLink } from "./StagedLink.js";

export interface SimUartOptions {
  readonly clock: Clock;
  /**
   * Line rate of the wire: bytes in both directions take their time on the clock (10 bits a
   * byte). Leave it out where the transport paces itself (a real UART) or has no rate (USB, TCP).
   */
  readonly baud?: number;
  /** The module's receive buffer (1500 bytes by default); `false` for none (tools over TCP). */
  readonly rx?: SimUartReceiverOptions | false;
  /** Impairments between the host and the module; `seed` makes them repeatable. */
  readonly impair?: LinkImpairmentSpec;
  readonly seed?: number | string;
  /** Records the link, at the host's end (`<name>.host`) and at the module's (`<name>.module`). */
  readonly capture?: LinkCapture;
  /** The link's name in captures (default `serial`). */
  readonly name?: string;
  /** Longest line the session holds (binary transfers arrive as one line). */
  readonly maxLineBytes?: number;
  /** Sees the bytes from the host as they come off the wire, before the receive buffer. */
  readonly onWire?: (bytes: Uint8Array) => void;
}

/**
 * The module's serial port on a byte link: the wire (impairments, baud pacing, outages), the
 * module's finite receive buffer on its clock, and the line session that feeds the module. The
 * same composition serves a real device (`--serial`), a pty, and in-process scenarios.
 *
 * Order on the way in: host end (captured) → outage → impairments → baud → receive buffer →
 * module end (captured) → session. On the way out the reverse, without the receive buffer.
 */
export class SimUart {
  readonly session: SerialSession;
  readonly link: StagedLink;
  readonly receiver: SimUartReceiver | undefined;
  readonly outage: LinkOutage;
  readonly name: string;
  readonly #stallIn: Stall;
  readonly #stallOut: Stall;

  private constructor(handler: LineHandler, link: ByteLink, options: SimUartOptions) {
    const { clock, capture } = options;
    const stallReport = (dir: Direction) => (event: ImpairmentEvent) =>
      capture?.record(
        dir === "h2m" ? `${this.name}.module` : `${this.name}.host`,
        dir,
        "impair",
        event.bytes,
        {
          impairment: event.impairment,
          position: event.position,
          ...event.info,
        },
      );
    this.#stallIn = new Stall(clock, {}, stallReport("h2m"));
    this.#stallOut = new Stall(clock, {}, stallReport("m2h"));
    this.name = options.name ?? "serial";
    const hostSide = `${this.name}.host`;
    const moduleSide = `${this.name}.module`;
    const built = buildImpairments(options.impair ?? {}, {
      clock,
      seed: options.seed ?? 0,
      report: (dir: Direction, event) =>
        capture?.record(dir === "h2m" ? moduleSide : hostSide, dir, "impair", event.bytes, {
          impairment: event.impairment,
          position: event.position,
          ...event.info,
        }),
    });
    this.outage = built.outage;
    this.outage.onChange((connected) =>
      capture?.record(hostSide, "h2m", "event", undefined, { event: connected ? "reconnect" : "disconnect" }),
    );
    this.receiver = options.rx === false ? undefined : new SimUartReceiver(clock, options.rx ?? {});
    this.receiver?.onOverflow((overflow) =>
      capture?.record(moduleSide, "h2m", "overflow", overflow.bytes, { position: overflow.position }),
    );

    const incoming: ByteStage[] = [];
    const outgoing: ByteStage[] = [];
    if (capture) incoming.push(capture.tap(hostSide, "h2m"));
    incoming.push(this.outage.toModule, ...built.h2m);
    incoming.push(this.#stallIn);
    if (options.baud) incoming.push(new BaudPacer(clock, { baud: options.baud }));
    if (options.onWire) incoming.push(new TapStage(options.onWire));
    if (this.receiver) incoming.push(this.receiver);
    if (capture) incoming.push(capture.tap(moduleSide, "h2m"));

    if (capture) outgoing.push(capture.tap(moduleSide, "m2h"));
    outgoing.push(...built.m2h, this.#stallOut);
    if (options.baud) outgoing.push(new BaudPacer(clock, { baud: options.baud }));
    outgoing.push(this.outage.toHost);
    if (capture) outgoing.push(capture.tap(hostSide, "m2h"));

    this.link = new StagedLink(link, { incoming, outgoing });
    const receiver = this.receiver;
    // The line after an accepted card.binary.put is binary: it bypasses the text drain rate.
    const watched = observeLines(handler, async (line, answer) => {
      const reply = await answer();
      if (receiver && reply !== undefined && !reply.text.includes('"err"') && isBinaryPut(line)) {
        receiver.expectBinaryLine();
      }
      return reply;
    });
    this.session = new SerialSession(watched, {
      write: (bytes) => this.link.write(bytes),
      maxLineBytes: options.maxLineBytes,
    });
    this.link.onData((bytes) => this.session.receive(bytes));
    this.link.onClose(() => this.outage.dispose());
  }

  /** Serves `handler` (a module) on `link`. */
  static attach(handler: LineHandler, link: ByteLink, options: SimUartOptions): SimUart {
    return new SimUart(handler, link, options);
  }

  /** Holds bytes in one direction (or both) for `ms`, then lets them through in order. */
  stall(ms: number, dir: Direction | "both" = "both"): void {
    if (dir !== "m2h") this.#stallIn.stall(ms);
    if (dir !== "h2m") this.#stallOut.stall(ms);
  }

  /** Bytes on their way (in impairments, pacers, the receive buffer) or in a partial line. */
  get inFlight(): number {
    return this.link.held + this.session.pending;
  }

  /** A short description of what is still in flight, for failure reports. */
  describeInFlight(): string {
    const parts: string[] = [];
    if (this.link.held > 0) parts.push(`${this.link.held} bytes on the wire or in the receive buffer`);
    if (this.session.pending > 0) parts.push(`${this.session.pending} bytes of a line without its newline`);
    return parts.join(", ");
  }

  close(): Promise<void> {
    this.outage.dispose();
    return this.link.close();
  }

  /** Lets go of the wire without closing it: the module behind this port lost power. */
  detach(): void {
    this.outage.dispose();
    this.link.detach();
  }
}
