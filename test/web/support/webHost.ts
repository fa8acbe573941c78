import type { ServerResponse } from "node:http";
import { md5Hex } from "../../../core/md5.js";
import { cobsDecode, cobsEncode } from "../../../firmware/host/Cobs.js";
import type { SimulatedModule } from "../../../runtime/SimulatedModule.js";
import type { Received } from "../../hub/routes/support/servers.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Bytes that are not text, the same every run. */
export function pattern(length: number, seed = 7): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (i * 31 + seed + (i >> 8)) & 0xff;
  return out;
}

/**
 * Fills the module's binary buffer as a host does: `card.binary.put` with the COBS size and MD5,
 * then the COBS bytes as the next line (the wire path, not a shortcut into the buffer).
 */
export async function putBinary(sim: SimulatedModule, bytes: Uint8Array): Promise<void> {
  const encoded = cobsEncode(bytes);
  const put = await sim.module.handleLine(
    encoder.encode(JSON.stringify({ req: "card.binary.put", cobs: encoded.length, status: md5Hex(bytes) })),
  );
  if (put?.trim() !== "{}") throw new Error(`card.binary.put answered ${put}`);
  await sim.module.handleLine(encoded);
  const state = JSON.parse((await sim.module.handleLine(encoder.encode('{"req":"card.binary"}')))!) as {
    length?: number;
    err?: string;
  };
  if (state.err !== undefined || state.length !== bytes.length)
    throw new Error(`the binary buffer holds ${JSON.stringify(state)}`);
}

/** Reads the whole binary buffer back as a host does (`card.binary.get`, COBS after the reply). */
export async function getBinary(
  sim: SimulatedModule,
): Promise<{ reply: { status?: string }; bytes: Uint8Array }> {
  const out = await sim.module.handleLineReply(encoder.encode('{"req":"card.binary.get"}'));
  if (!out) throw new Error("no reply to card.binary.get");
  const reply = JSON.parse(out.text) as { status?: string; err?: string };
  if (reply.err !== undefined) throw new Error(reply.err);
  return { reply, bytes: cobsDecode(out.after!.subarray(0, out.after!.length - 1)) };
}

/** A handler serving `resource`, with HTTP ranges (206) unless `ranges` is false (then 200, all of it). */
export function serveBytes(
  resource: Uint8Array,
  options: { ranges?: boolean } = {},
): (req: Received, res: ServerResponse) => void {
  return (req, res) => {
    res.setHeader("Content-Type", "application/octet-stream");
    const range = /^bytes=(\d+)-(\d+)$/.exec(String(req.headers.range ?? ""));
    if (!range || options.ranges === false) {
      res.end(Buffer.from(resource));
      return;
    }
    const start = Number(range[1]);
    const end = Math.min(Number(range[2]), resource.length - 1);
    res.statusCode = 206;
    res.setHeader("Content-Range", `bytes ${start}-${end}/${resource.length}`);
    res.end(Buffer.from(resource.subarray(start, end + 1)));
  };
}

/** A handler answering JSON that says what it received (method, path, content type, body). */
export function echoJson(req: Received, res: ServerResponse): void {
  res.setHeader("Content-Type", "application/json");
  res.end(
    JSON.stringify({
      method: req.method,
      url: req.url,
      type: req.headers["content-type"] ?? null,
      bytes: req.body.length,
      md5: md5Hex(new Uint8Array(req.body)),
      json: req.json ?? null,
    }),
  );
}

export const text = (bytes: Uint8Array): string => decoder.decode(bytes);
export const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64");
