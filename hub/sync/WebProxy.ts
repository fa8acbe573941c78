import { md5Hex } from "../md5.js";
import { decodeBase64, encodeBase64 } from "../../core/base64.js";
import type { Clock } from "../../core/Clock.js";
import { WEB_ERRORS, type WebReply, type WebRequestMessage } from "../../protocol/messages.js";
import { PROTOCOL_VERSION } from "../../protocol/version.js";
import { WebRequestError, type WebRequest, type WebResponse } from "../routing/RoutingService.js";
import { SyncRefusal } from "./SyncRefusal.js";

/** What the proxy needs of routing: the web request through a proxy route. */
export interface WebRequester {
  webRequest(req: WebRequest): Promise<WebResponse>;
}

/** The device a `web` message came from (its session's). */
export interface WebDevice {
  readonly deviceUid: string;
  readonly projectUid: string;
}

/** An upload the hub holds fragments of, until it is whole. */
interface Upload {
  readonly key: string;
  readonly deviceUid: string;
  readonly total: number;
  bytes: Uint8Array;
  /** Bytes held, from offset 0. */
  length: number;
  touchedMs: number;
}

/** An upload nobody continued for this long (hub clock) is dropped. */
export const UPLOAD_IDLE_MS = 15 * 60_000;
/** Uploads one device may have under way; a newer one drops its least recently continued. */
export const UPLOADS_PER_DEVICE = 4;
/** Uploads under way on the hub at most (the least recently continued goes first). */
const MAX_UPLOADS = 256;
/**
 * Bytes the hub holds for uploads under way, all devices together (the least recently continued
 * go first): without it 256 uploads of 10 MB could take 2.5 GB of the hub's memory.
 */
export const MAX_HELD_UPLOAD_BYTES = 64 * 1024 * 1024;
/** A ranged read of an endpoint that ignores ranges reads the answer up to this far, at most. */
const RANGE_READ_LIMIT = 16 * 1024 * 1024;

const refuse = (code: string, text: string): SyncRefusal => new SyncRefusal(code, text);

/**
 * The hub's end of the module's `web.*` requests (docs/sync-protocol.md, "Web requests"): a `web`
 * message of an open session becomes a request through the project's proxy route with that alias
 * (`routing.webRequest`), and its answer the reply. Fragments of an upload are assembled here, in
 * memory, keyed by device, alias, method and name: each is answered `100` until the upload is
 * whole, then the one request is made. A fragment may repeat or go back (the upload is cut back to
 * its offset and continues from there), never skip ahead: a gap is refused, so an upload the hub
 * lost (a restart, 15 idle minutes, room made for others: at most 4 uploads a device, 256 and
 * `MAX_HELD_UPLOAD_BYTES` on the hub) fails clearly at its next fragment.
 *
 * `handle` waits on the network: call it outside any store transaction.
 */
export class WebProxy {
  readonly #uploads = new Map<string, Upload>();
  readonly #maxHeldBytes: number;
  /** Bytes allocated for the uploads under way (their buffers, not only what they hold yet). */
  #heldBytes = 0;

  constructor(
    private readonly routing: WebRequester,
    private readonly clock: Clock,
    limits: { readonly heldBytes?: number } = {},
  ) {
    this.#maxHeldBytes = limits.heldBytes ?? MAX_HELD_UPLOAD_BYTES;
  }

  /** Uploads under way now (for tests and diagnostics). */
  get uploads(): number {
    return this.#uploads.size;
  }

  /** Bytes held for the uploads under way (for tests and diagnostics). */
  get heldBytes(): number {
    return this.#heldBytes;
  }

  /** Answers one `web` message (already read by `readMessage`); refusals are `SyncRefusal`s. */
  async handle(device: WebDevice, message: WebRequestMessage): Promise<WebReply> {
    this.#sweep();
    const data = message.data === undefined ? new Uint8Array(0) : decodeBase64(message.data)!;
    if (message.md5 !== undefined && md5Hex(data) !== message.md5) {
      throw refuse(WEB_ERRORS.payload, "the data does not match its md5: it was damaged on its way");
    }
    let body: Uint8Array | null = message.data === undefined ? null : data;
    let upload: Upload | undefined;
    if (message.fragment) {
      upload = this.#fragment(device, message, data);
      if (upload.length < upload.total) {
        return { v: PROTOCOL_VERSION, status: 100, received: upload.length };
      }
      body = upload.bytes.subarray(0, upload.length);
    }
    const range = message.range;
    let answer: WebResponse;
    try {
      answer = await this.routing.webRequest({
        projectUid: device.projectUid,
        deviceUid: device.deviceUid,
        alias: message.route,
        method: message.method,
        ...(message.name !== undefined ? { name: message.name } : {}),
        ...(message.content !== undefined ? { contentType: message.content } : {}),
        body,
        ...(range ? { headers: { Range: `bytes=${range.offset}-${range.offset + range.length - 1}` } } : {}),
        timeoutMs: message.seconds * 1000,
        maxBytes: range ? Math.min(range.offset + range.length, RANGE_READ_LIMIT) : message.max,
      });
    } catch (error) {
      // The upload stays: the host may send its last fragment again.
      if (error instanceof WebRequestError) throw refusalOf(error, message.route);
      throw error;
    }
    // The endpoint answered: the upload is done with, whatever the status.
    if (upload && this.#uploads.get(upload.key) === upload) this.#drop(upload.key);
    let bytes = answer.body;
    let truncated = answer.truncated;
    if (range) {
      // 206 is the range asked for; an endpoint that ignores ranges answers the whole (200).
      bytes =
        answer.status === 200
          ? bytes.subarray(range.offset, range.offset + range.length)
          : bytes.subarray(0, range.length);
      truncated = false;
    }
    const content = answer.headers["content-type"];
    return {
      v: PROTOCOL_VERSION,
      status: answer.status,
      ...(content !== undefined ? { content } : {}),
      ...(bytes.length > 0 ? { data: encodeBase64(bytes) } : {}),
      ...(truncated ? { truncated: true } : {}),
    };
  }

  /** Adds a fragment to its upload; returns the upload (whole when `length` reached `total`). */
  #fragment(device: WebDevice, message: WebRequestMessage, data: Uint8Array): Upload {
    const { offset, total } = message.fragment!;
    const key = [device.deviceUid, message.route, message.method, message.name ?? ""].join("\n");
    let upload = this.#uploads.get(key);
    if (upload && upload.total !== total) {
      if (offset !== 0) {
        throw refuse(
          WEB_ERRORS.fragment,
          `total ${total} is not the ${upload.total} of the upload under way: start it again at offset 0`,
        );
      }
      this.#drop(key);
      upload = undefined;
    }
    const held = upload?.length ?? 0;
    if (offset > held) {
      throw refuse(
        WEB_ERRORS.fragment,
        `a fragment at offset ${offset} leaves a gap: the hub holds ${held} bytes of this upload (continue at offset ${held})`,
      );
    }
    if (offset + data.length > total) {
      throw refuse(
        WEB_ERRORS.fragment,
        `a fragment of ${data.length} bytes at offset ${offset} ends past the upload's total of ${total}`,
      );
    }
    if (!upload) {
      upload = {
        key,
        deviceUid: device.deviceUid,
        total,
        bytes: new Uint8Array(0),
        length: 0,
        touchedMs: 0,
      };
      this.#admit(upload);
    }
    const end = offset + data.length;
    if (end > upload.bytes.length) {
      const size = Math.min(total, Math.max(end, upload.bytes.length * 2));
      this.#makeRoom(size - upload.bytes.length, key);
      const grown = new Uint8Array(size);
      grown.set(upload.bytes.subarray(0, Math.min(upload.length, offset)));
      this.#heldBytes += size - upload.bytes.length;
      upload.bytes = grown;
    }
    upload.bytes.set(data, offset);
    // Sending an earlier offset again cuts the upload back to it: what follows comes again.
    upload.length = end;
    upload.touchedMs = this.clock.now();
    // The most recently continued last (Map order), so eviction takes the stalest first.
    this.#uploads.delete(key);
    this.#uploads.set(key, upload);
    return upload;
  }

  /** Makes room for a new upload: per device and on the hub, the least recently continued goes. */
  #admit(upload: Upload): void {
    const ofDevice = [...this.#uploads.values()].filter((u) => u.deviceUid === upload.deviceUid);
    while (ofDevice.length >= UPLOADS_PER_DEVICE) this.#drop(ofDevice.shift()!.key);
    while (this.#uploads.size >= MAX_UPLOADS) this.#drop(this.#uploads.keys().next().value!);
  }

  /**
   * Makes room for `more` bytes of the upload `key` within the hub's budget: the least recently
   * continued other uploads go (an upload alone never exceeds the budget: at most 10 MB).
   */
  #makeRoom(more: number, key: string): void {
    for (const other of [...this.#uploads.keys()]) {
      if (this.#heldBytes + more <= this.#maxHeldBytes) return;
      if (other !== key) this.#drop(other);
    }
  }

  #drop(key: string): void {
    const upload = this.#uploads.get(key);
    if (!upload) return;
    this.#heldBytes -= upload.bytes.length;
    this.#uploads.delete(key);
  }

  #sweep(): void {
    const now = this.clock.now();
    for (const [key, upload] of this.#uploads) {
      if (now - upload.touchedMs >= UPLOAD_IDLE_MS) this.#drop(key);
    }
  }
}

/** A failed proxied request as the protocol refuses it. */
function refusalOf(error: WebRequestError, alias: string): SyncRefusal {
  switch (error.code) {
    case "no-route":
      return refuse(WEB_ERRORS.noRoute, `no enabled proxy route with alias ${alias} serves this device`);
    case "timeout":
      return refuse(WEB_ERRORS.timeout, error.message);
    case "unreachable":
      return refuse(WEB_ERRORS.unreachable, error.message);
    case "transform":
      return refuse(WEB_ERRORS.transform, `the route's JSONata failed: ${error.message}`);
  }
}
