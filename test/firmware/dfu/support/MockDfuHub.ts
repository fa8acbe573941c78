import { encodeBase64 } from "../../../../core/base64.js";
import { md5Hex } from "../../../../core/md5.js";
import type {
  DfuReportRequest,
  DfuTarget,
  FirmwareImage,
  ProtocolReply,
  ProtocolRequest,
  ReadRequest,
} from "../../../../protocol/messages.js";
import { PROTOCOL_VERSION } from "../../../../protocol/version.js";
import { crc32 } from "../../../../core/crc32.js";
import { MockHub } from "../../sync/support/MockHub.js";

/**
 * A scripted hub for the module's end of firmware updates: the sync session of MockHub, plus the
 * firmware messages from images offered by the test (`offer`, `withdraw`), with faults a test
 * arms (a damaged chunk, an image that disappears). It records every read and report.
 */
export class MockDfuHub extends MockHub {
  readonly images = new Map<string, { image: FirmwareImage; bytes: Uint8Array }>();
  readonly wanted: Partial<Record<DfuTarget, string>> = {};
  readonly reads: ReadRequest[] = [];
  readonly reports: DfuReportRequest[] = [];
  /** Images still offered whose reads fail as if the hub had deleted them. */
  readonly vanished = new Set<string>();
  /** Firmware messages are refused (a hub that does not speak them). */
  refuseFirmware = false;
  /** Damages the data of the reads it returns true for (the MD5 stays the original's). */
  damage: (read: ReadRequest) => boolean = () => false;
  readonly #session: (request: ProtocolRequest) => Promise<ProtocolReply>;

  constructor() {
    super();
    this.#session = this.respond;
    this.respond = (request) => this.#respond(request);
  }

  /** Stores an image and asks the module to take it for `target`; returns its description. */
  offer(
    target: DfuTarget,
    name: string,
    bytes: Uint8Array,
    extra: Partial<FirmwareImage> = {},
  ): FirmwareImage {
    const image: FirmwareImage = {
      name,
      source: name.replace(/\$\d+/, ""),
      type: target === "user" ? "firmware" : "notecard",
      length: bytes.length,
      md5: md5Hex(bytes),
      crc32: crc32(bytes),
      created: Math.floor(this.time / 1000),
      modified: Math.floor(this.time / 1000),
      ...extra,
    };
    this.images.set(name, { image, bytes });
    this.wanted[target] = name;
    return image;
  }

  /** The hub no longer wants the target updated (a cancel). */
  withdraw(target: DfuTarget): void {
    delete this.wanted[target];
  }

  /** The latest state the module reported for a target. */
  state(target: DfuTarget) {
    return this.reports.filter((r) => r.target === target).at(-1)?.state;
  }

  /** Every step the module reported for a target, in order (repeats included). */
  steps(target: DfuTarget) {
    return this.reports.filter((r) => r.target === target).flatMap((r) => r.updates);
  }

  /** Bytes of `name` the module has read so far (repeats counted once). */
  bytesRead(name: string): number {
    const seen = new Set<number>();
    let total = 0;
    for (const r of this.reads) {
      if (r.name !== name || seen.has(r.offset)) continue;
      seen.add(r.offset);
      total += r.length;
    }
    return total;
  }

  async #respond(request: ProtocolRequest): Promise<ProtocolReply> {
    const v = PROTOCOL_VERSION;
    if (!["firmware", "read", "dfu"].includes(request.type)) return this.#session(request);
    this.messages.push(request);
    if (this.refuseFirmware) return { v, err: `{bad-request} unknown message type ${request.type}` };
    switch (request.type) {
      case "firmware": {
        const reply: Record<string, unknown> = { v };
        for (const [target, name] of Object.entries(this.wanted)) {
          const found = this.images.get(name);
          if (found) reply[target] = found.image;
        }
        return reply as ProtocolReply;
      }
      case "read": {
        const read = request as ReadRequest;
        this.reads.push(read);
        const found = this.images.get(read.name);
        if (!found || this.vanished.has(read.name))
          return { v, err: `{dfu-noexist} firmware ${read.name} does not exist` };
        const data = found.bytes.slice(read.offset, read.offset + read.length);
        const md5 = md5Hex(data);
        if (this.damage(read) && data.length > 0) data[0] = data[0]! ^ 0xff;
        return { v, name: read.name, offset: read.offset, data: encodeBase64(data), md5 };
      }
      default:
        this.reports.push(request as DfuReportRequest);
        return { v };
    }
  }
}
