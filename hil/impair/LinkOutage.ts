import type { Clock, TimerHandle } from "../../core/Clock.js";
import { ByteStage } from "../stages/ByteStage.js";
import type { ImpairmentListener } from "./ImpairmentEvent.js";

/** The side of one direction of a link that an outage stage cuts. */
class CutStage extends ByteStage {
  readonly #outage: LinkOutage;
  readonly #report: ImpairmentListener;

  constructor(outage: LinkOutage, report: ImpairmentListener) {
    super();
    this.#outage = outage;
    this.#report = report;
  }

  protected receive(bytes: Uint8Array, position: number): void {
    if (this.#outage.connected) return this.emit(bytes);
    this.#report({ impairment: "lost", position, bytes: bytes.slice() });
  }
}

/**
 * Disconnects and reconnects a link: while disconnected, bytes in both directions are lost (a
 * cable pulled and plugged back, a UART wire with a bad contact), the ends are not told. Outages
 * start on demand or on a schedule of the link's clock (`at` ms after the outage was made).
 */
export class LinkOutage {
  readonly #clock: Clock;
  readonly #listeners: ((connected: boolean) => void)[] = [];
  readonly #timers = new Set<TimerHandle>();
  readonly toModule: ByteStage;
  readonly toHost: ByteStage;
  #connected = true;

  constructor(
    clock: Clock,
    options: {
      schedule?: readonly { at: number; for: number }[];
      report?: (dir: "h2m" | "m2h") => ImpairmentListener;
    } = {},
  ) {
    this.#clock = clock;
    const report = options.report ?? (() => () => undefined);
    this.toModule = new CutStage(this, report("h2m"));
    this.toHost = new CutStage(this, report("m2h"));
    for (const { at, for: duration } of options.schedule ?? []) {
      if (!(at >= 0 && duration > 0))
        throw new Error(`an outage needs at >= 0 and for > 0, got ${at}, ${duration}`);
      this.#after(at, () => {
        this.disconnect();
        this.#after(duration, () => this.reconnect());
      });
    }
  }

  get connected(): boolean {
    return this.#connected;
  }

  onChange(listener: (connected: boolean) => void): void {
    this.#listeners.push(listener);
  }

  disconnect(): void {
    this.#set(false);
  }

  reconnect(): void {
    this.#set(true);
  }

  dispose(): void {
    for (const t of this.#timers) this.#clock.clearTimer(t);
    this.#timers.clear();
  }

  #set(connected: boolean): void {
    if (this.#connected === connected) return;
    this.#connected = connected;
    for (const l of this.#listeners) l(connected);
  }

  #after(ms: number, fn: () => void): void {
    const handle = this.#clock.setTimer(() => {
      this.#timers.delete(handle);
      fn();
    }, ms);
    this.#timers.add(handle);
  }
}
