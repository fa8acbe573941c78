import { connect } from "node:net";
import { appendCrc, checkRequestCrc } from "../firmware/host/RequestCrc.js";
import type { ByteLink } from "./links/ByteLink.js";
import { TcpLink } from "./links/TcpLink.js";
import { NOTICE_PREFIX, NOTICES_COMMAND } from "./ModuleLinkServer.js";

const SEGMENT_BYTES = 250;
const SEGMENT_DELAY_MS = 250;

/**
 * The host end of the serial line protocol, for tools and tests: sends one request line and
 * waits for its reply, skipping trace output and heartbeats as host libraries do.
 */
export class HostLineClient {
  readonly #link: ByteLink;
  #buffer = "";
  #waiters: ((line: string | undefined) => void)[] = [];
  #lines: string[] = [];
  #closed = false;
  #sequence = 0;
  #notices: string[] = [];

  constructor(link: ByteLink) {
    this.#link = link;
    link.onData((bytes) => this.#receive(Buffer.from(bytes).toString("latin1")));
    link.onClose(() => {
      this.#closed = true;
      for (const w of this.#waiters.splice(0)) w(undefined);
    });
  }

  static tcp(address: { host: string; port: number }): Promise<HostLineClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(address.port, address.host);
      socket.once("connect", () => {
        socket.off("error", reject);
        resolve(new HostLineClient(new TcpLink(socket)));
      });
      socket.once("error", (error: NodeJS.ErrnoException) =>
        reject(
          Object.assign(new Error(`cannot connect to ${address.host}:${address.port}: ${error.message}`), {
            code: error.code,
          }),
        ),
      );
    });
  }

  static async serial(spec: string): Promise<HostLineClient> {
    // Loaded on use: serialport's native binding is not needed to talk TCP.
    const { SerialPortLink } = await import("./links/SerialPortLink.js");
    const client = new HostLineClient(await SerialPortLink.open(spec));
    await client.resync();
    return client;
  }

  #receive(text: string): void {
    this.#buffer += text;
    let nl: number;
    while ((nl = this.#buffer.indexOf("\n")) >= 0) {
      const line = this.#buffer.slice(0, nl).replace(/\r$/, "");
      this.#buffer = this.#buffer.slice(nl + 1);
      const waiter = this.#waiters.shift();
      if (waiter) waiter(line);
      else this.#lines.push(line);
    }
  }

  /** The next line from the module (without `\r\n`), or undefined on timeout or close. */
  nextLine(timeoutMs: number): Promise<string | undefined> {
    const queued = this.#lines.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.#closed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter = (line: string | undefined) => {
        clearTimeout(timer);
        resolve(line);
      };
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        resolve(undefined);
      }, timeoutMs);
      this.#waiters.push(waiter);
    });
  }

  /** Sends raw bytes. */
  write(bytes: Uint8Array | string): void {
    this.#link.write(typeof bytes === "string" ? Buffer.from(bytes, "utf8") : bytes);
  }

  /**
   * Sends a line in 250-byte segments 250 ms apart, as host libraries do, so that a long request
   * fits the module's 1500-byte receive buffer on a serial device.
   */
  async #writePaced(bytes: Buffer): Promise<void> {
    for (let offset = 0; offset < bytes.length; offset += SEGMENT_BYTES) {
      if (offset > 0) await new Promise((resolve) => setTimeout(resolve, SEGMENT_DELAY_MS));
      this.write(bytes.subarray(offset, offset + SEGMENT_BYTES));
    }
  }

  /**
   * Asks a cardsim module's TCP port for its notices about this client's requests (arguments it
   * ignored); `transaction` then collects them (`notices`). Anything else ignores the command.
   */
  enableNotices(): void {
    this.write(NOTICES_COMMAND + "\n");
  }

  /** What the module noted about the last transaction's request (with `enableNotices`). */
  get notices(): readonly string[] {
    return this.#notices;
  }

  /** A bare newline; the module answers `\r\n`. Drains anything stale first. */
  async resync(timeoutMs = 500): Promise<boolean> {
    this.#lines = [];
    this.write("\n");
    for (;;) {
      const line = await this.nextLine(timeoutMs);
      if (line === undefined) return false;
      if (line === "") return true;
    }
  }

  /**
   * Sends `json` as one line. Returns the reply line, or undefined for a `cmd`. With `crc`, adds
   * the request CRC field and checks the reply's (throws on a mismatch).
   */
  async transaction(
    json: string,
    options: { timeoutMs?: number; crc?: boolean } = {},
  ): Promise<string | undefined> {
    const timeoutMs = options.timeoutMs ?? 30_000;
    const isCommand = /^\s*\{\s*"cmd"\s*:/.test(json) || (!/"req"\s*:/.test(json) && /"cmd"\s*:/.test(json));
    const sequence = this.#sequence++ & 0xffff;
    const line = options.crc && !isCommand ? appendCrc(json.trim(), sequence) : json.trim();
    this.#notices = [];
    await this.#writePaced(Buffer.from(line + "\n", "utf8"));
    if (isCommand) return undefined;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const reply = await this.nextLine(Math.max(1, deadline - Date.now()));
      if (reply === undefined) throw new Error(`no reply within ${timeoutMs} ms`);
      if (reply.startsWith(NOTICE_PREFIX)) {
        this.#notices.push(reply.slice(NOTICE_PREFIX.length));
        continue;
      }
      // Hosts skip trace output (lines not starting with "{") and heartbeats.
      if (!reply.startsWith("{") || reply.includes('"err":"{heartbeat}"')) continue;
      if (options.crc && !reply.includes('"err":')) {
        const check = checkRequestCrc(reply);
        if (check.kind !== "ok" || check.sequence !== sequence) throw new Error(`reply CRC error: ${reply}`);
      }
      return reply;
    }
  }

  async close(): Promise<void> {
    await this.#link.close();
  }
}
