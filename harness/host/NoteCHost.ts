import type { Clock } from "../../core/Clock.js";
import { cobsDecode, cobsEncode } from "../../firmware/host/Cobs.js";
import { appendCrc, checkRequestCrc } from "../../firmware/host/RequestCrc.js";
import { md5Hex } from "../../core/md5.js";
import { HostIoError, TransportAborted, type HostTransport } from "./HostTransport.js";
import { NOTE_C_TIMING, type NoteCTiming } from "./NoteCTiming.js";
import { sleep } from "../../core/Clock.js";
import type { JsonObject } from "../../core/json.js";

/** Something the emulated host did, for traces and scenario reports. */
export interface HostEvent {
  readonly t: number;
  readonly event: "reset" | "send" | "reply" | "retry" | "give-up" | "restart";
  readonly detail?: string;
}

export interface NoteCHostOptions {
  readonly clock: Clock;
  readonly transport: HostTransport;
  readonly timing?: Partial<NoteCTiming>;
  /** Add the request CRC (note-c does unless built with NOTE_C_LOW_MEM). */
  readonly crc?: boolean;
  readonly onEvent?: (event: HostEvent) => void;
  /**
   * Told when one of the host's calls (request, command, reset, binary put or get) begins; the
   * function it returns is called when that call ends, however it ends.
   */
  readonly onCall?: () => () => void;
}

const decoder = new TextDecoder();

/** Thrown into a transaction that was in progress when the host MCU restarted. */
export class HostRestarted extends Error {
  constructor() {
    super("the host restarted during the transaction");
  }
}

/**
 * A host MCU running note-c, reproduced on a clock: the same request CRC and sequence numbers,
 * resets with the newline drain rule, segment pacing, reply timeouts, and retries on `{io}`
 * (not on `{bad-bin}` or `{not-supported}`), 500 ms apart, up to 5 times. Failed transactions
 * return note-c's error document (`{"err":"... {io}","src":"note-c"}`), as `NoteRequestResponse`
 * does, and make the next transaction start with a reset.
 */
export class NoteCHost {
  readonly timing: NoteCTiming;
  readonly #clock: Clock;
  readonly #transport: HostTransport;
  readonly #crc: boolean;
  readonly #onEvent: (event: HostEvent) => void;
  readonly #onCall: (() => () => void) | undefined;
  #sequence = 0;
  #resetRequired = true;
  #moduleSendsCrc = false;
  #generation = 0;
  #busy: Promise<unknown> = Promise.resolve();
  readonly stats = { transactions: 0, retries: 0, resets: 0, failures: 0 };

  constructor(options: NoteCHostOptions) {
    this.#clock = options.clock;
    this.#transport = options.transport;
    this.timing = { ...NOTE_C_TIMING, ...options.timing };
    this.#crc = options.crc ?? true;
    this.#onEvent = options.onEvent ?? (() => undefined);
    this.#onCall = options.onCall;
  }

  get transport(): HostTransport {
    return this.#transport;
  }

  /** The sequence number the next request's CRC field will carry. */
  get sequence(): number {
    return this.#sequence;
  }

  /** Sends a request and returns the module's reply, or note-c's error document. */
  request(req: JsonObject): Promise<JsonObject> {
    if (typeof req["req"] !== "string" || req["cmd"] !== undefined) {
      throw new Error('NoteCHost.request needs an object with "req" (and no "cmd")');
    }
    return this.#exclusive(async () => (await this.#transaction(req))!);
  }

  /** Sends a command (no reply). */
  command(cmd: JsonObject): Promise<void> {
    if (typeof cmd["cmd"] !== "string" || cmd["req"] !== undefined) {
      throw new Error('NoteCHost.command needs an object with "cmd" (and no "req")');
    }
    return this.#exclusive(async () => void (await this.#transaction(cmd)));
  }

  /**
   * note-c's NoteBinaryStoreTransmit: checks the module's binary buffer (`card.binary`, a
   * `{bad-bin}` left by a failed put is fine), that `offset` is its current length and the data
   * fits; then `card.binary.put` with the COBS length and MD5, the COBS bytes and `\n` at once
   * (no segment pauses), and `card.binary` to confirm; on `{bad-bin}` the put is tried again, 3
   * times in all. Returns undefined on success, or note-c's error text.
   */
  binaryPut(data: Uint8Array, offset = 0): Promise<string | undefined> {
    return this.#exclusive(() => this.#binaryPut(data, offset));
  }

  /**
   * note-c's NoteBinaryStoreReceive: `card.binary.get` for `length` bytes at `offset`, then the
   * COBS packet read as raw bytes (60 s), decoded, and checked against the reply's MD5.
   */
  binaryGet(offset: number, length: number): Promise<{ data: Uint8Array } | { err: string }> {
    return this.#exclusive(() => this.#binaryGet(offset, length));
  }

  /** Resynchronizes with the module now (note-c's NoteReset). */
  reset(): Promise<boolean> {
    return this.#exclusive(() => this.#reset(this.#generation));
  }

  /**
   * The host MCU restarts: whatever it was doing is abandoned, its sequence number starts again
   * at 0, and its next transaction begins with a reset, as after a power-on.
   */
  restart(): void {
    this.#generation++;
    this.#sequence = 0;
    this.#resetRequired = true;
    this.#moduleSendsCrc = false;
    this.#busy = Promise.resolve();
    this.#transport.discard();
    this.#emit("restart");
  }

  #exclusive<T>(task: () => Promise<T>): Promise<T> {
    const call = async () => {
      const end = this.#onCall?.();
      try {
        return await task();
      } finally {
        end?.();
      }
    };
    const run = this.#busy.then(call, call);
    this.#busy = run.catch(() => undefined);
    return run;
  }

  #emit(event: HostEvent["event"], detail?: string): void {
    this.#onEvent({ t: this.#clock.now(), event, ...(detail === undefined ? {} : { detail }) });
  }

  #check(generation: number): void {
    if (generation !== this.#generation) throw new HostRestarted();
  }

  async #reset(generation: number): Promise<boolean> {
    this.stats.resets++;
    this.#emit("reset");
    const ok = await this.#aborting(this.#transport.reset());
    this.#check(generation);
    this.#resetRequired = !ok;
    return ok;
  }

  #timeoutMs(req: JsonObject, name: string): number {
    // note-c: note.add and web.* may carry their own wait (plus a second of margin); web.*
    // default to the module's 90 s; everything else waits CARD_INTER_TRANSACTION_TIMEOUT_SEC.
    if (name === "note.add" || name.startsWith("web")) {
      const ms = req["milliseconds"];
      const s = req["seconds"];
      if (typeof ms === "number") return ms + 1000;
      if (typeof s === "number") return s * 1000 + 1000;
      if (name.startsWith("web")) return 90_000;
    }
    return this.timing.transactionTimeoutMs;
  }

  /** A transport operation the host's restart interrupted becomes HostRestarted. */
  async #aborting<T>(operation: Promise<T>): Promise<T> {
    try {
      return await operation;
    } catch (error) {
      if (error instanceof TransportAborted) throw new HostRestarted();
      throw error;
    }
  }

  async #transaction(req: JsonObject): Promise<JsonObject | undefined> {
    const generation = this.#generation;
    const isCommand = req["cmd"] !== undefined;
    const name = String(isCommand ? req["cmd"] : req["req"]);
    const id = typeof req["id"] === "number" ? req["id"] : undefined;
    const errDoc = (err: string): JsonObject => ({ err, src: "note-c", ...(id ? { id } : {}) });
    this.stats.transactions++;

    if (this.#resetRequired && !(await this.#reset(generation))) {
      this.stats.failures++;
      this.#emit("give-up", "reset failed");
      return isCommand ? undefined : errDoc("failed to reset Notecard interface {io}");
    }
    const timeoutMs = this.#timeoutMs(req, name);
    let json = JSON.stringify(req);
    const crcAdded = this.#crc && !isCommand;
    if (crcAdded) json = appendCrc(json, this.#sequence);

    let err: string | undefined;
    let reply: JsonObject | undefined;
    for (let attempt = 0; attempt <= this.timing.requestRetries; attempt++) {
      if (attempt > 0) this.stats.retries++;
      err = undefined;
      reply = undefined;
      let text: string;
      try {
        this.#emit("send", json);
        await this.#aborting(this.#transport.sendRequest(json));
        this.#check(generation);
        if (isCommand) break;
        text = await this.#receiveReply(timeoutMs, generation);
      } catch (error) {
        if (!(error instanceof HostIoError)) throw error;
        err = error.message;
        this.#emit("retry", err);
        this.#resetRequired = !(await this.#reset(generation));
        await sleep(this.#clock, this.timing.retryDelayMs);
        this.#check(generation);
        continue;
      }
      this.#emit("reply", text);
      if (crcAdded && this.#crcError(text)) {
        err = "CRC error {io}";
        this.#emit("retry", err);
        await sleep(this.#clock, this.timing.retryDelayMs);
        this.#check(generation);
        continue;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
        err = "corrupt response {io}";
        this.#emit("retry", err);
        await sleep(this.#clock, this.timing.retryDelayMs);
        this.#check(generation);
        continue;
      }
      reply = parsed as JsonObject;
      delete reply["crc"];
      const replyErr = typeof reply["err"] === "string" ? reply["err"] : "";
      if (replyErr.includes("{bad-bin}")) break;
      if (replyErr.includes("{io}") && !replyErr.includes("{not-supported}")) {
        err = "corrupt response {io}";
        this.#emit("retry", replyErr);
        await sleep(this.#clock, this.timing.retryDelayMs);
        this.#check(generation);
        continue;
      }
      break;
    }
    this.#sequence = (this.#sequence + 1) & 0xffff;
    if (isCommand) return undefined;
    if (err !== undefined) {
      this.stats.failures++;
      this.#resetRequired = true;
      this.#emit("give-up", err);
      return errDoc(err);
    }
    return reply;
  }

  async #binaryPut(data: Uint8Array, offset: number): Promise<string | undefined> {
    const generation = this.#generation;
    const check = (await this.#transaction({ req: "card.binary" }))!;
    const checkErr = typeof check["err"] === "string" ? check["err"] : undefined;
    if (checkErr && !checkErr.includes("{bad-bin}")) return "unexpected error received during handshake";
    const max = typeof check["max"] === "number" ? check["max"] : 0;
    const length = typeof check["length"] === "number" ? check["length"] : 0;
    if (!max) return "unexpected response: max is zero or not present";
    if (offset !== length) return "notecard data length is misaligned with offset";
    if (data.length > (offset ? max - length : max)) return "buffer size exceeds available memory";
    const status = md5Hex(data);
    const encoded = cobsEncode(data);
    const packet = new Uint8Array(encoded.length + 1);
    packet.set(encoded);
    packet[encoded.length] = 0x0a;
    const attempts = 3;
    for (let i = 0; i < attempts; i++) {
      const put = (await this.#transaction({
        req: "card.binary.put",
        cobs: encoded.length,
        ...(offset ? { offset } : {}),
        status,
      }))!;
      if (put["err"] !== undefined) return "failed to initialize binary transaction";
      try {
        await this.#aborting(this.#transport.sendRaw(packet));
      } catch (error) {
        if (error instanceof HostIoError) return error.message;
        throw error;
      }
      this.#check(generation);
      const confirm = (await this.#transaction({ req: "card.binary" }))!;
      const err = typeof confirm["err"] === "string" ? confirm["err"] : undefined;
      if (!err) return undefined;
      if (!err.includes("{bad-bin}")) return "unexpected error received during confirmation";
      this.#emit("retry", err);
    }
    return "binary data invalid";
  }

  async #binaryGet(offset: number, length: number): Promise<{ data: Uint8Array } | { err: string }> {
    const generation = this.#generation;
    if (length === 0) return { err: "decodedLen cannot be zero (0)" };
    const reply = (await this.#transaction({ req: "card.binary.get", offset, length }))!;
    if (reply["err"] !== undefined) return { err: "failed to initialize binary transaction" };
    const status = typeof reply["status"] === "string" ? reply["status"] : "";
    let packet: Uint8Array;
    try {
      packet = await this.#aborting(this.#transport.receiveLine(60_000));
    } catch (error) {
      if (error instanceof HostIoError) return { err: error.message };
      throw error;
    }
    this.#check(generation);
    let data: Uint8Array;
    try {
      data = cobsDecode(packet.subarray(0, packet.length - 1));
    } catch {
      return { err: "length mismatch after decoding" };
    }
    if (data.length !== length) return { err: "length mismatch after decoding" };
    if (md5Hex(data) !== status) return { err: "computed MD5 does not match received MD5" };
    return { data };
  }

  /** The next reply line, skipping heartbeats (which restart the wait). */
  async #receiveReply(timeoutMs: number, generation: number): Promise<string> {
    for (;;) {
      const line = decoder.decode(await this.#aborting(this.#transport.receiveLine(timeoutMs))).trim();
      this.#check(generation);
      if (line.includes('"err":"{heartbeat}')) continue;
      return line;
    }
  }

  /**
   * note-c's `_crcError`: error replies and text not ending in `}` are not checked; a crc field
   * must match this request's sequence number and the reply text; once the module has sent one
   * CRC, a reply without one is an error.
   */
  #crcError(text: string): boolean {
    if (text.includes('"err":') || !text.endsWith("}")) return false;
    const check = checkRequestCrc(text);
    if (check.kind === "none" || check.kind === "malformed") return this.#moduleSendsCrc;
    this.#moduleSendsCrc = true;
    return check.kind === "mismatch" || check.sequence !== this.#sequence;
  }
}
