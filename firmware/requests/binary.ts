import {
  binaryBad,
  binaryBadStatus,
  binaryCobsMismatch,
  binaryEmpty,
  binaryNegative,
  binaryOffsetMisaligned,
  binaryOutOfRange,
  binaryTooBig,
} from "../errors.js";
import type { CobsError } from "../host/Cobs.js";
import { cobsDecode, cobsEncodedMaxLength } from "../host/Cobs.js";
import { md5Hex } from "../../core/md5.js";
import type { ModuleContext } from "../ModuleContext.js";
import type { Args } from "./Args.js";
import type { RequestTable } from "./RequestTable.js";
import type { JsonObject } from "../../core/json.js";

const MD5 = /^[0-9a-fA-F]{32}$/;

/** A count argument: absent and -1 (the reset value) mean "not given". */
function count(args: Args, name: string): number | undefined {
  const v = args.int(name);
  if (v === undefined || v === -1) return undefined;
  if (v < 0) throw binaryNegative(name);
  return v;
}

/** `card.binary`: the buffer's state; `delete`/`reset` empty it. */
function cardBinary(module: ModuleContext, args: Args): JsonObject {
  const buffer = module.binary;
  if (args.bool("delete") || args.bool("reset")) buffer.clear();
  const reply: JsonObject = { max: buffer.max };
  if (buffer.length > 0) {
    reply["status"] = buffer.md5();
    reply["length"] = buffer.length;
    reply["cobs"] = buffer.cobsLength();
  }
  // Hosts read length and max from the {bad-bin} reply too (to retry at the right offset).
  if (buffer.fault !== undefined) throw binaryBad(buffer.fault, reply);
  return reply;
}

/**
 * `card.binary.put`: checks the announced transfer, replies, and takes the next line from the
 * host as `cobs` bytes of COBS data. A bad transfer keeps what the buffer held before it and
 * makes `card.binary` answer `{bad-bin}` until the next put or a reset.
 */
function cardBinaryPut(module: ModuleContext, args: Args, isCommand: boolean): JsonObject {
  const buffer = module.binary;
  const offset = count(args, "offset") ?? 0;
  const cobs = count(args, "cobs");
  const status = args.string("status");
  if (status !== undefined && status !== "" && !MD5.test(status)) throw binaryBadStatus();
  if (offset > buffer.length) throw binaryOffsetMisaligned(offset, buffer.length);
  if (cobs !== undefined && cobs > cobsEncodedMaxLength(buffer.max - offset))
    throw binaryTooBig(cobs, offset, buffer.max);
  if (isCommand) return {};
  module.expectBinary((line) => {
    const fail = (reason: string) => {
      module.log.warn("binary transfer failed", { reason, offset });
      buffer.markFault(reason);
    };
    if (line === undefined) return fail("the data was longer than the link can hold");
    if (cobs !== undefined && line.length !== cobs)
      return fail(`received ${line.length} encoded bytes, expected ${cobs}`);
    let data: Uint8Array;
    try {
      data = cobsDecode(line);
    } catch (error) {
      return fail(`the data is not valid COBS: ${(error as CobsError).message}`);
    }
    if (status && md5Hex(data) !== status.toLowerCase())
      return fail(`the data does not match its MD5 ${status.toLowerCase()}`);
    if (offset > buffer.length) return fail(`offset ${offset} is past the end of the buffer`);
    if (offset + data.length > buffer.max)
      return fail(`${offset + data.length} bytes exceed the capacity of ${buffer.max}`);
    buffer.write(offset, data);
  });
  return {};
}

/**
 * `card.binary.get`: replies with the MD5 of the requested bytes, then sends them as COBS plus a
 * newline right after the reply.
 */
function cardBinaryGet(module: ModuleContext, args: Args): JsonObject {
  const buffer = module.binary;
  const offset = count(args, "offset") ?? 0;
  const requested = count(args, "length");
  const cobs = count(args, "cobs");
  if (buffer.fault !== undefined) throw binaryBad(buffer.fault);
  if (buffer.length === 0) throw binaryEmpty();
  const length = requested ?? buffer.length - offset;
  if (!buffer.contains(offset, length) || length === 0) throw binaryOutOfRange(offset, length, buffer.length);
  const packet = buffer.encode(offset, length);
  if (cobs !== undefined && cobs !== packet.length - 1) throw binaryCobsMismatch(cobs, packet.length - 1);
  module.sendAfterReply(packet);
  const whole = offset === 0 && length === buffer.length;
  return { status: whole ? buffer.md5() : md5Hex(buffer.bytes().subarray(offset, offset + length)) };
}

/** Variants with a binary buffer (the LoRa and satellite modules have none). */
const BINARY_VARIANTS = ["cell", "cell-wifi", "wifi"] as const;

/** `card.binary*`: the binary buffer. */
export const binaryRequests: RequestTable = {
  "card.binary": { handler: ({ module, args }) => cardBinary(module, args), variants: BINARY_VARIANTS },
  "card.binary.put": {
    handler: ({ module, args, isCommand }) => cardBinaryPut(module, args, isCommand),
    variants: BINARY_VARIANTS,
  },
  "card.binary.get": {
    handler: ({ module, args }) => cardBinaryGet(module, args),
    variants: BINARY_VARIANTS,
  },
};
