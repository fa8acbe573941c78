import type { HostTransport } from "./host/HostTransport.js";
import type { HostEvent, NoteCHost } from "./host/NoteCHost.js";
import type { ByteLink } from "../hil/links/ByteLink.js";
import type { TimeDriver } from "./TimeDriver.js";
import type { JsonObject } from "../core/json.js";

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
