import type { Clock } from "../core/Clock.js";
import type { JsonObject } from "../core/json.js";
import type { LinkCapture } from "../hil/capture/LinkCapture.js";
import type { ByteLink } from "../hil/links/ByteLink.js";
import type { HostCall, HostTraffic } from "./HostTraffic.js";
import type { HostTransport } from "./host/HostTransport.js";
import { I2cHostTransport } from "./host/I2cHostTransport.js";
import { NoteCHost, type HostEvent } from "./host/NoteCHost.js";
import { NOTE_C_TIMING, type NoteCTiming } from "./host/NoteCTiming.js";
import { SerialHostTransport } from "./host/SerialHostTransport.js";
import type { ScenarioI2c } from "./ScenarioI2c.js";
import type { ScenarioSerial } from "./ScenarioSerial.js";
import type { TimeDriver } from "./TimeDriver.js";

export interface NoteCHostOptions {
  readonly transport?: "serial" | "i2c";
  readonly timing?: Partial<NoteCTiming>;
  readonly crc?: boolean;
  readonly txBufferBytes?: number;
}

/**
 * The note-c host emulator on a scenario's serial link (default) or I2C bus, in-process. With a
 * baud rate, its serial writes block like an MCU's UART driver with a 64-byte transmit buffer.
 */
export function attachNoteCHost(
  scenario: {
    clock: Clock;
    driver: TimeDriver;
    serial: ScenarioSerial;
    i2c: ScenarioI2c | undefined;
    capture: LinkCapture | undefined;
    traffic: HostTraffic;
  },
  options: NoteCHostOptions,
): ScenarioHost {
  const { clock, serial, i2c, capture, traffic } = scenario;
  const timing: NoteCTiming = { ...NOTE_C_TIMING, ...options.timing };
  const kind = options.transport ?? "serial";
  let transport: HostTransport;
  let reattach: ((link: ByteLink) => void) | undefined;
  if (kind === "i2c") {
    const controller = i2c?.controller;
    if (!controller) {
      throw new Error(
        i2c
          ? "attachNoteC: the I2C bus is a rig's: its host is the MCU wired to it"
          : "attachNoteC: this scenario has no I2C link (Scenario.start({ i2c: {} }))",
      );
    }
    transport = new I2cHostTransport(controller, clock, timing, { address: i2c.address });
  } else {
    if (!serial.hostLink)
      throw new Error("attachNoteC: this scenario's host is a real device on the serial port");
    const serialTransport = new SerialHostTransport(serial.hostLink, clock, timing, {
      txBaud: serial.options.baud,
      txBufferBytes: options.txBufferBytes,
    });
    transport = serialTransport;
    reattach = (link) => serialTransport.attach(link);
  }
  const link = kind === "i2c" ? "i2c.host" : `${serial.name}.host`;
  const events: HostEvent[] = [];
  // What the module receives on this link, as the scenario's traffic names it.
  const trafficLink = kind === "i2c" ? "i2c" : serial.name;
  const calls: HostCall[] = [];
  const noteC = new NoteCHost({
    clock,
    transport,
    timing,
    crc: options.crc,
    // The test asked the host for each of its calls: what the host sends for one is expected.
    onCall: () => {
      const call = traffic.call(trafficLink);
      calls.push(call);
      return () => {
        const i = calls.indexOf(call);
        if (i >= 0) calls.splice(i, 1);
        call.end();
      };
    },
    onEvent: (event) => {
      events.push(event);
      if (event.event === "send" && event.detail !== undefined)
        for (const call of calls) call.sent(event.detail);
      if (event.event !== "send" && event.event !== "reply") {
        capture?.record(link, "h2m", "event", undefined, {
          host: event.event,
          ...(event.detail !== undefined ? { detail: event.detail } : {}),
        });
      }
    },
  });
  return new ScenarioHost(scenario.driver, noteC, events, reattach);
}

/** The note-c host emulator attached to a scenario; its calls run the scenario's clock. */
export class ScenarioHost {
  readonly noteC: NoteCHost;
  /** What the host did (resets, sends, replies, retries), in order. */
  readonly events: readonly HostEvent[];
  readonly #driver: TimeDriver;
  readonly #transport: HostTransport;
  readonly #reattach: ((link: ByteLink) => void) | undefined;

  constructor(
    driver: TimeDriver,
    noteC: NoteCHost,
    events: readonly HostEvent[],
    reattach?: (link: ByteLink) => void,
  ) {
    this.#driver = driver;
    this.noteC = noteC;
    this.#transport = noteC.transport;
    this.events = events;
    this.#reattach = reattach;
  }

  /** Which link the host uses. */
  get kind(): "serial" | "i2c" {
    return this.#transport.kind;
  }

  /** Bytes the module sent over serial that the host has not read. */
  get unread(): number {
    return this.#transport.pending;
  }

  /** Sends a request like NoteRequestResponse: the reply, or note-c's error document. */
  request(req: JsonObject, options: { timeout?: number } = {}): Promise<JsonObject> {
    return this.#driver.run(
      this.noteC.request(req),
      options.timeout ?? 600_000,
      `the host's ${String(req["req"])} transaction`,
    );
  }

  command(cmd: JsonObject, options: { timeout?: number } = {}): Promise<void> {
    return this.#driver.run(
      this.noteC.command(cmd),
      options.timeout ?? 60_000,
      `the host's ${String(cmd["cmd"])} command`,
    );
  }

  reset(): Promise<boolean> {
    return this.#driver.run(this.noteC.reset(), 120_000, "the host's reset");
  }

  /** note-c's NoteBinaryStoreTransmit: undefined on success, else its error text. */
  binaryPut(data: Uint8Array, offset = 0, options: { timeout?: number } = {}): Promise<string | undefined> {
    return this.#driver.run(
      this.noteC.binaryPut(data, offset),
      options.timeout ?? 1_800_000,
      "the host's binary put",
    );
  }

  /** note-c's NoteBinaryStoreReceive. */
  binaryGet(
    offset: number,
    length: number,
    options: { timeout?: number } = {},
  ): Promise<{ data: Uint8Array } | { err: string }> {
    return this.#driver.run(
      this.noteC.binaryGet(offset, length),
      options.timeout ?? 1_800_000,
      "the host's binary get",
    );
  }

  /** @internal the cable came back: the host reopens its serial port. */
  reattach(link: ByteLink): void {
    this.#reattach?.(link);
  }
}
