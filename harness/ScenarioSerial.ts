import type { Clock } from "../core/Clock.js";
import type { LineHandler } from "../firmware/host/SerialSession.js";
import type { ModuleLog } from "../firmware/ModuleLog.js";
import type { LinkCapture } from "../hil/capture/LinkCapture.js";
import type { LinkImpairmentSpec } from "../hil/impair/Impairments.js";
import type { ByteLink } from "../hil/links/ByteLink.js";
import { MemoryLink } from "../hil/links/MemoryLink.js";
import { SerialPortLink } from "../hil/links/SerialPortLink.js";
import { SimUart } from "../hil/links/SimUart.js";
import type { SimUartReceiverOptions, UartOverflow } from "../hil/links/SimUartReceiver.js";
import { WireLines, type WireLine } from "./SegmentPacing.js";

export interface ScenarioSerialOptions {
  /** The link's name in captures and reports (default `serial`). */
  readonly name?: string;
  /** Line rate: bytes in both directions take their wire time on the scenario's clock. */
  readonly baud?: number;
  /** The module's receive buffer (1500 bytes by default); `false` for none. */
  readonly rx?: SimUartReceiverOptions | false;
  /** Impairments on the link (seeded by the scenario's seed). */
  readonly impair?: LinkImpairmentSpec;
  /**
   * A real serial device (`/dev/ttyAMA0@9600`, `/dev/ttyGS0`) with a real host MCU on its other
   * end: the scenario runs on real time, and the host is whatever is wired there.
   */
  readonly device?: string;
}

/**
 * The serial link of a scenario: the module's UART (wire timing, impairments, the finite receive
 * buffer) on an in-memory cable to the host, or on a real device; the cable can be unplugged,
 * cut and stalled; every overflow episode of the receive buffer is kept.
 */
export class ScenarioSerial {
  readonly name: string;
  /** Overflow episodes of the module's receive buffer: every loss, grouped by episode. */
  readonly overflows: UartOverflow[][] = [];
  readonly #options: ScenarioSerialOptions;
  readonly #clock: Clock;
  readonly #seed: number | string;
  readonly #capture: LinkCapture | undefined;
  readonly #log: ModuleLog;
  readonly #elapsed: () => number;
  readonly #wire: WireLines;
  #uart!: SimUart;
  #hostLink: MemoryLink | undefined;
  #moduleLink!: ByteLink;
  #module!: () => LineHandler;
  /** Bumped at each attachment: replies to lines of an earlier UART are not delivered. */
  #attachments = 0;
  #overflowsExpected = 0;
  #overflowWaiters: ((o: UartOverflow[]) => void)[] = [];

  constructor(options: {
    serial: ScenarioSerialOptions;
    clock: Clock;
    seed: number | string;
    capture: LinkCapture | undefined;
    log: ModuleLog;
    elapsed: () => number;
  }) {
    this.#options = options.serial;
    this.name = options.serial.name ?? "serial";
    this.#clock = options.clock;
    this.#seed = options.seed;
    this.#capture = options.capture;
    this.#log = options.log;
    this.#elapsed = options.elapsed;
    this.#wire = new WireLines(this.name);
  }

  get options(): ScenarioSerialOptions {
    return this.#options;
  }

  /**
   * Opens the cable (in memory, or the real device) and attaches the module's UART to it;
   * `module` gives the module's line handler as it is at each (re)attachment.
   */
  async connect(device: string | undefined, module: () => LineHandler): Promise<void> {
    this.#module = module;
    if (device) {
      this.#moduleLink = await SerialPortLink.open(device);
    } else {
      const [host, moduleEnd] = MemoryLink.pair();
      this.#hostLink = host;
      this.#moduleLink = moduleEnd;
    }
    this.attach();
  }

  get uart(): SimUart {
    return this.#uart;
  }

  /** The host's end of the in-memory cable (absent on a real device). */
  get hostLink(): MemoryLink | undefined {
    return this.#hostLink;
  }

  /** Lines as they arrived on the wire, with their bursts. */
  get wireLines(): readonly WireLine[] {
    return this.#wire.lines;
  }

  /** Attaches a new UART to the cable, delivering to the module as it is now. */
  attach(): void {
    const attachment = ++this.#attachments;
    const module = this.#module();
    const current = <T>(reply: T): T | undefined => (attachment === this.#attachments ? reply : undefined);
    const handler: LineHandler = {
      handleLine: async (line) => current(await module.handleLine(line)),
      handleLineReply: module.handleLineReply
        ? async (line) => current(await module.handleLineReply!(line))
        : undefined,
      handleOverflow: async (length) => current(await module.handleOverflow(length)),
    };
    this.#uart = SimUart.attach(handler, this.#moduleLink, {
      clock: this.#clock,
      baud: this.#options.baud,
      rx: this.#options.rx,
      impair: this.#options.impair,
      seed: this.#seed,
      capture: this.#capture,
      name: this.name,
      onWire: (bytes) => this.#wire.push(this.#elapsed(), bytes),
    });
    let episodes = 0;
    this.#uart.receiver?.onOverflow((overflow) => {
      this.#log.warn("serial receive buffer overflow", {
        lost: overflow.bytes.length,
        position: overflow.position,
        episode: overflow.episode,
      });
      if (overflow.episode === episodes) {
        this.overflows.at(-1)!.push(overflow);
        return;
      }
      episodes = overflow.episode;
      const episode = [overflow];
      this.overflows.push(episode);
      const waiter = this.#overflowWaiters.shift();
      if (waiter) {
        this.#overflowsExpected++;
        waiter(episode);
      }
    });
  }

  /** The module went down: its UART stops (bytes in its buffers are lost). */
  detach(): void {
    this.#uart.detach();
  }

  /** An overflow episode (one already seen and not yet expected, or the next one). */
  nextOverflow(): Promise<UartOverflow[]> | UartOverflow[] {
    if (this.#overflowsExpected < this.overflows.length) return this.overflows[this.#overflowsExpected++]!;
    return new Promise((resolve) => this.#overflowWaiters.push(resolve));
  }

  /** Overflow episodes nobody expected. */
  unexpectedOverflows(): UartOverflow[][] {
    return this.overflows.slice(this.#overflowsExpected);
  }

  disconnect(forMs?: number): void {
    this.#uart.outage.disconnect();
    if (forMs !== undefined) this.#clock.setTimer(() => this.#uart.outage.reconnect(), forMs);
  }

  reconnect(): void {
    this.#uart.outage.reconnect();
  }

  stall(ms: number, dir: "h2m" | "m2h" | "both"): void {
    this.#uart.stall(ms, dir);
  }

  async unplug(): Promise<void> {
    if (!this.#hostLink) throw new Error("unplug: a real device cannot be unplugged by the harness");
    this.#capture?.record(`${this.name}.host`, "h2m", "event", undefined, { event: "unplug" });
    await this.#hostLink.close();
  }

  /** Connects a new cable; returns the host's end of it. */
  replug(): MemoryLink {
    if (!this.#hostLink) throw new Error("replug: a real device cannot be replugged by the harness");
    if (!this.#hostLink.closed) throw new Error("replug: the cable is still plugged in");
    const [host, moduleEnd] = MemoryLink.pair();
    this.#hostLink = host;
    this.#moduleLink = moduleEnd;
    this.attach();
    this.#capture?.record(`${this.name}.host`, "h2m", "event", undefined, { event: "replug" });
    return host;
  }

  async close(): Promise<void> {
    // Parts may be missing when the scenario failed to start.
    if (this.#uart) await this.#uart.close();
    await this.#hostLink?.close();
  }
}
