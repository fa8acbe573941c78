import { decodeBase64 } from "../../core/base64.js";
import { sleep, type Clock } from "../../core/Clock.js";
import type { JsonObject } from "../../core/json.js";
import { Md5, md5Hex } from "../../core/md5.js";
import type { NoteCHost } from "./NoteCHost.js";

export interface NoteCIapOptions {
  /** Bytes per `dfu.get` (the vendor's example reads 8192 at a time). */
  readonly chunk?: number;
  /** Read through the binary buffer (`dfu.get binary:true`, then `card.binary.get`) instead of base64. */
  readonly binary?: boolean;
  /** How long the host waits between `dfu.status` polls while the module downloads (default 60 s). */
  readonly pollMs?: number;
  /** How long the host keeps polling before it gives up (default 24 hours). */
  readonly waitMs?: number;
  /** Attempts at one chunk before the host gives the update up (default 5). */
  readonly chunkAttempts?: number;
  /** The host's flash: what it does with each verified chunk (a test may damage it here). */
  readonly write?: (offset: number, bytes: Uint8Array) => Uint8Array | void;
  /** Called after each chunk is written (a scenario injects faults here). */
  readonly afterChunk?: (offset: number) => void | Promise<void>;
}

/** How an update went, as the host saw it. */
export interface IapResult {
  /**
   * `installed`: read, verified and stopped with success; `failed`: the host stopped it with an
   * error; `nothing`: the module had no update (or the hub cancelled it); `timeout`: never ready.
   */
  readonly outcome: "installed" | "failed" | "nothing" | "timeout";
  /** The image's description from `dfu.status` `body`. */
  readonly body?: JsonObject;
  /** What the host wrote to its flash. */
  readonly image?: Uint8Array;
  readonly md5?: string;
  readonly error?: string;
  /** What the host did, in order (for reports). */
  readonly steps: readonly string[];
}

const errOf = (reply: JsonObject): string | undefined =>
  typeof reply["err"] === "string" ? reply["err"] : undefined;

/**
 * The in-application-programming (IAP) flow of a host running note-c, as the vendor documents it:
 * poll `dfu.status` until the module has a `ready` image; wait until it has no hub session; enter
 * DFU mode (`hub.set mode:dfu`) and poll `dfu.get length:0` until it is active; read the image with
 * `dfu.get` in chunks (base64, or through the binary buffer), checking each; verify the whole
 * image's MD5 against `body.md5`; leave DFU mode (`hub.set mode:dfu-completed`); end the update
 * with `dfu.status stop:true` and a status, or `err` when verification failed. It retries a chunk
 * the module did not deliver (a module that restarted answers again once it is back in DFU mode).
 */
export class NoteCIap {
  readonly #host: NoteCHost;
  readonly #clock: Clock;
  readonly #options: NoteCIapOptions;
  readonly #steps: string[] = [];

  constructor(host: NoteCHost, clock: Clock, options: NoteCIapOptions = {}) {
    this.#host = host;
    this.#clock = clock;
    this.#options = options;
  }

  /** Runs one update from the first poll to the final `dfu.status stop`. */
  async run(): Promise<IapResult> {
    const ready = await this.#waitReady();
    if (ready === "timeout") return this.#result({ outcome: "timeout" });
    if (!ready) return this.#result({ outcome: "nothing" });
    const body = ready;
    const length = typeof body["length"] === "number" ? body["length"] : 0;
    const expected = typeof body["md5"] === "string" ? body["md5"] : "";
    await this.#enterDfuMode();
    const image = new Uint8Array(length);
    const md5 = new Md5();
    const chunk = this.#options.chunk ?? 8192;
    for (let offset = 0; offset < length;) {
      const bytes = await this.#readChunk(offset, Math.min(chunk, length - offset));
      if (typeof bytes === "string") {
        await this.#request({ req: "hub.set", mode: "dfu-completed" });
        await this.#stop({ err: bytes });
        return this.#result({ outcome: "failed", body, error: bytes });
      }
      const written = this.#options.write?.(offset, bytes) ?? bytes;
      image.set(written, offset);
      md5.update(written);
      offset += bytes.length;
      await this.#options.afterChunk?.(offset);
    }
    const got = md5.hex();
    await this.#request({ req: "hub.set", mode: "dfu-completed" });
    if (got !== expected) {
      const error = `image MD5 ${got} does not match ${expected}`;
      await this.#stop({ err: error });
      return this.#result({ outcome: "failed", body, image, md5: got, error });
    }
    await this.#stop({ status: `installed ${String(body["version"] ?? body["name"] ?? "firmware")}` });
    return this.#result({ outcome: "installed", body, image, md5: got });
  }

  #result(fields: Omit<IapResult, "steps">): IapResult {
    return { ...fields, steps: [...this.#steps] };
  }

  async #request(req: JsonObject): Promise<JsonObject> {
    const reply = await this.#host.request(req);
    const err = errOf(reply);
    this.#steps.push(`${String(req["req"])}${err ? ` -> ${err}` : ""}`);
    return reply;
  }

  /** The image's description once the module has it ready; undefined when there is no update. */
  async #waitReady(): Promise<JsonObject | undefined | "timeout"> {
    const until = this.#clock.now() + (this.#options.waitMs ?? 86_400_000);
    let seen = false;
    for (;;) {
      const status = await this.#request({ req: "dfu.status" });
      const mode = status["mode"];
      if (mode === "ready" && status["body"] && typeof status["body"] === "object")
        return status["body"] as JsonObject;
      if (mode === "downloading") seen = true;
      // An update the host saw start and that ended without an image (cancelled, failed).
      else if (seen && mode !== undefined) return undefined;
      if (this.#clock.now() >= until) return "timeout";
      await sleep(this.#clock, this.#options.pollMs ?? 60_000);
    }
  }

  /** DFU mode, once the module has no hub session; then until `dfu.get length:0` answers. */
  async #enterDfuMode(): Promise<void> {
    for (let i = 0; i < 600; i++) {
      const hub = await this.#request({ req: "hub.status" });
      if (!String(hub["status"] ?? "").includes("{connected}")) break;
      await sleep(this.#clock, 1000);
    }
    await this.#request({ req: "hub.set", mode: "dfu" });
    for (let i = 0; i < 600; i++) {
      const probe = await this.#request({ req: "dfu.get", length: 0 });
      if (!errOf(probe)) return;
      await sleep(this.#clock, 1000);
    }
  }

  /** One chunk, checked; or why the host gives the update up. */
  async #readChunk(offset: number, length: number): Promise<Uint8Array | string> {
    const attempts = this.#options.chunkAttempts ?? 5;
    let why = "";
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) await sleep(this.#clock, 1000);
      const reply = await this.#request({
        req: "dfu.get",
        offset,
        length,
        ...(this.#options.binary ? { binary: true } : {}),
      });
      const err = errOf(reply);
      if (err) {
        why = err;
        // A module that restarted (or timed DFU mode out) is asked into DFU mode again.
        if (err.includes("{dfu-not-ready}")) await this.#enterDfuMode();
        continue;
      }
      if (!this.#options.binary) {
        const bytes = decodeBase64(String(reply["payload"] ?? ""));
        if (bytes && bytes.length === length) return bytes;
        why = `dfu.get at ${offset} returned ${bytes?.length ?? "no"} bytes`;
        continue;
      }
      const received = await this.#host.binaryGet(0, length);
      this.#steps.push(`card.binary.get${"err" in received ? ` -> ${received.err}` : ""}`);
      if ("err" in received) {
        why = received.err;
        continue;
      }
      if (received.data.length === length && md5Hex(received.data) === reply["status"]) return received.data;
      why = `the binary buffer at ${offset} does not match dfu.get's MD5`;
    }
    return `could not read the image at ${offset}: ${why}`;
  }

  async #stop(how: { status?: string; err?: string }): Promise<void> {
    await this.#request({ req: "dfu.status", stop: true, ...how });
  }
}
