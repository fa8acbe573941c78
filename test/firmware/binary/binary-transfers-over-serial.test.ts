import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { cobsDecode, cobsEncode } from "../../../firmware/host/Cobs.js";
import { SerialSession } from "../../../firmware/host/SerialSession.js";
import { bootTestModule, type TestModule } from "../../support/moduleFixture.js";

const md5 = (data: Uint8Array) => createHash("md5").update(data).digest("hex");
const enc = new TextEncoder();
const dec = new TextDecoder();

/** A host on a serial line: sends bytes, reads back everything the module wrote. */
async function serialHost(options: Parameters<typeof bootTestModule>[0] = {}) {
  const t = await bootTestModule(options);
  let received = new Uint8Array();
  const session = new SerialSession(t.module, {
    write: (bytes) => {
      const all = new Uint8Array(received.length + bytes.length);
      all.set(received);
      all.set(bytes, received.length);
      received = all;
    },
  });
  const take = () => {
    const out = received;
    received = new Uint8Array();
    return out;
  };
  const send = async (bytes: Uint8Array | string) => {
    session.receive(typeof bytes === "string" ? enc.encode(bytes) : bytes);
    await session.idle();
    return take();
  };
  const request = async (req: object) => JSON.parse(dec.decode(await send(JSON.stringify(req) + "\n")));
  /** The put flow of the host library: put, reply, then COBS + newline. */
  const put = async (data: Uint8Array, offset = 0, extra: object = {}) => {
    const encoded = cobsEncode(data);
    const reply = await request({
      req: "card.binary.put",
      cobs: encoded.length,
      status: md5(data),
      ...(offset ? { offset } : {}),
      ...extra,
    });
    const packet = new Uint8Array(encoded.length + 1);
    packet.set(encoded);
    packet[encoded.length] = 0x0a;
    const after = await send(packet);
    return { reply, after };
  };
  /** The get flow: the JSON reply line, then COBS + newline on the same stream. */
  const get = async (req: object) => {
    const bytes = await send(JSON.stringify({ req: "card.binary.get", ...req }) + "\n");
    const nl = bytes.indexOf(0x0a);
    const reply = JSON.parse(dec.decode(bytes.subarray(0, nl + 1)));
    const rest = bytes.subarray(nl + 1);
    return { reply, rest };
  };
  return { t, send, request, put, get };
}

function data(length: number, seed = 1): Uint8Array {
  return new Uint8Array(length).map((_, i) => (i * 13 + seed * 7 + (i >> 3)) & 0xff);
}

describe("binary transfers over a serial link", () => {
  it("exists on the cellular and WiFi modules only", async () => {
    for (const variant of ["lora", "ntn"] as const) {
      const t = await bootTestModule({ variant });
      expect((await t.req({ req: "card.binary" })).err).toMatch(/not supported for .*\{not-supported\}/);
    }
    const wifi = await bootTestModule({ variant: "wifi" });
    expect(await wifi.req({ req: "card.binary" })).toEqual({ max: 130554 });
  });

  it("reports an empty buffer with only its capacity", async () => {
    const h = await serialHost();
    expect(await h.request({ req: "card.binary" })).toEqual({ max: 130554 });
  });

  it("takes a put, reports length, MD5 and encoded size, and gives the bytes back after the reply", async () => {
    const h = await serialHost();
    const payload = data(1000);
    const { reply, after } = await h.put(payload);
    expect(reply).toEqual({});
    expect(after.length).toBe(0); // binary data gets no reply
    expect(await h.request({ req: "card.binary" })).toEqual({
      max: 130554,
      status: md5(payload),
      length: 1000,
      cobs: cobsEncode(payload).length,
    });
    const { reply: got, rest } = await h.get({ offset: 0, length: 1000 });
    expect(got).toEqual({ status: md5(payload) });
    expect(rest[rest.length - 1]).toBe(0x0a);
    expect(rest.subarray(0, rest.length - 1).includes(0x0a)).toBe(false);
    expect(cobsDecode(rest.subarray(0, rest.length - 1))).toEqual(payload);
  });

  it("appends at an offset and serves any slice with the slice's MD5", async () => {
    const h = await serialHost();
    const a = data(300, 1);
    const b = data(500, 2);
    await h.put(a);
    await h.put(b, 300);
    const whole = new Uint8Array([...a, ...b]);
    expect((await h.request({ req: "card.binary" })).length).toBe(800);
    const { reply, rest } = await h.get({ offset: 250, length: 100 });
    expect(reply.status).toBe(md5(whole.subarray(250, 350)));
    expect(cobsDecode(rest.subarray(0, -1))).toEqual(whole.subarray(250, 350));
    const all = await h.get({});
    expect(all.reply.status).toBe(md5(whole));
    expect(cobsDecode(all.rest.subarray(0, -1))).toEqual(whole);
  });

  it("answers {bad-bin} after corrupt data, keeps the earlier content, and accepts the retry", async () => {
    const h = await serialHost();
    const first = data(100, 3);
    await h.put(first);
    const second = data(200, 4);
    const encoded = cobsEncode(second);
    await h.request({ req: "card.binary.put", cobs: encoded.length, status: md5(second), offset: 100 });
    const corrupt = encoded.slice();
    corrupt[50] = corrupt[50] === 0x41 ? 0x42 : 0x41; // still valid COBS, wrong MD5
    await h.send(new Uint8Array([...corrupt, 0x0a]));
    const bad = await h.request({ req: "card.binary" });
    expect(bad.err).toMatch(/\{bad-bin\}/);
    expect(bad.err).toMatch(/MD5/);
    // The host library reads length and max from the {bad-bin} reply to retry at the right offset.
    expect(bad.length).toBe(100);
    expect(bad.max).toBe(130554);
    expect((await h.get({})).reply.err).toMatch(/\{bad-bin\}/);
    await h.put(second, 100);
    expect(await h.request({ req: "card.binary" })).toMatchObject({
      length: 300,
      status: md5(new Uint8Array([...first, ...second])),
    });
  });

  it("fails transfers whose length, COBS or size is wrong", async () => {
    const h = await serialHost({ binaryMax: 1000 });
    const payload = data(50);
    const encoded = cobsEncode(payload);
    // Announced size differs from what arrives.
    await h.request({ req: "card.binary.put", cobs: encoded.length + 1 });
    await h.send(new Uint8Array([...encoded, 0x0a]));
    expect((await h.request({ req: "card.binary" })).err).toMatch(/expected 52.*\{bad-bin\}/);
    // Not COBS at all (a truncated run).
    await h.request({ req: "card.binary.put" });
    await h.send(new Uint8Array([0x0f, 0x0b, 0x0a]));
    expect((await h.request({ req: "card.binary" })).err).toMatch(/not valid COBS.*\{bad-bin\}/);
    // More than the capacity is refused up front.
    const tooBig = await h.request({ req: "card.binary.put", cobs: 2000 });
    expect(tooBig.err).toMatch(/\{too-big\}/);
    // An offset past the end is refused up front.
    expect((await h.request({ req: "card.binary.put", cobs: 10, offset: 10 })).err).toMatch(
      /past the end.*\{bad-bin\}/,
    );
    // A status that is no MD5.
    expect((await h.request({ req: "card.binary.put", cobs: 10, status: "xyz" })).err).toMatch(/\{io\}/);
  });

  it("answers a bare newline in place of the data (a host resyncing) and fails the transfer", async () => {
    const h = await serialHost();
    await h.request({ req: "card.binary.put", cobs: 10 });
    expect(dec.decode(await h.send("\n"))).toBe("\r\n");
    expect((await h.request({ req: "card.binary" })).err).toMatch(/\{bad-bin\}/);
    expect(await h.request({ req: "card.binary", reset: true })).toEqual({ max: 130554 });
  });

  it("empties the buffer with delete or reset, and rejects gets outside it", async () => {
    const h = await serialHost();
    await h.put(data(10));
    expect((await h.get({ offset: 5, length: 6 })).reply.err).toMatch(/beyond.*\{bad-bin\}/);
    expect((await h.get({ offset: 0, length: 10, cobs: 3 })).reply.err).toMatch(/\{bad-bin\}/);
    expect(await h.request({ req: "card.binary", delete: true })).toEqual({ max: 130554 });
    expect((await h.get({})).reply.err).toMatch(/empty.*\{bad-bin\}/);
  });

  it("replaces the content when a put has no offset", async () => {
    const h = await serialHost();
    await h.put(data(400, 1));
    const b = data(30, 2);
    await h.put(b);
    expect(await h.request({ req: "card.binary" })).toMatchObject({ length: 30, status: md5(b) });
  });

  it("fills the whole configured capacity and no more", async () => {
    const h = await serialHost({ binaryMax: 4096 });
    const full = data(4096);
    await h.put(full);
    expect(await h.request({ req: "card.binary" })).toMatchObject({ max: 4096, length: 4096 });
    expect((await h.request({ req: "card.binary.put", cobs: 2, offset: 4096 })).err).toMatch(/\{too-big\}/);
    // Refused puts expect no data: the next line is a request again.
    expect(await h.request({ req: "card.binary" })).toMatchObject({ length: 4096 });
  });

  it("handles the largest transfer the reference target allows", async () => {
    const h = await serialHost();
    const big = data(130554);
    await h.put(big);
    expect(await h.request({ req: "card.binary" })).toMatchObject({ length: 130554, status: md5(big) });
    const { rest } = await h.get({});
    expect(md5(cobsDecode(rest.subarray(0, -1)))).toBe(md5(big));
  });

  it("loses the buffer on restart (it lives in RAM)", async () => {
    const h = await serialHost();
    await h.put(data(20));
    await h.t.module.request({ req: "card.binary" }); // still there
    h.t.module.restartAfterReply();
    await h.t.module.request({ req: "echo" });
    expect(await h.request({ req: "card.binary" })).toEqual({ max: 130554 });
  });

  it("signs the get reply with the request CRC and still sends the data after it", async () => {
    const h = await serialHost();
    const payload = data(64);
    await h.put(payload);
    const { crc32Text } = await import("../../../core/crc32.js");
    const body = '{"req":"card.binary.get","length":64}';
    const crc = crc32Text(body).toString(16).toUpperCase().padStart(8, "0");
    const bytes = await h.send(body.slice(0, -1) + `,"crc":"0007:${crc}"}\n`);
    const nl = bytes.indexOf(0x0a);
    const line = dec.decode(bytes.subarray(0, nl + 1));
    expect(line).toMatch(/^\{"status":"[0-9a-f]{32}","crc":"0007:[0-9A-F]{8}"\}\r\n$/);
    expect(cobsDecode(bytes.subarray(nl + 1, -1))).toEqual(payload);
  });

  it("sends no data for a get sent as cmd, and serves nothing in-process beyond the reply", async () => {
    const h = await serialHost();
    await h.put(data(8));
    expect((await h.send('{"cmd":"card.binary.get"}\n')).length).toBe(0);
    const t: TestModule = h.t;
    expect(await t.req({ req: "card.binary.get" })).toEqual({ status: md5(data(8)) });
  });
});
