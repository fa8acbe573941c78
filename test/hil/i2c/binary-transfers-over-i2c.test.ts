import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { cobsDecode, cobsEncode } from "../../../firmware/host/Cobs.js";
import { PICO } from "../../../hil/i2c/I2cHardwareProfile.js";
import { i2cRig } from "./i2cRig.js";

const md5 = (d: Uint8Array) => createHash("md5").update(d).digest("hex");
const payload = (n: number) => new Uint8Array(n).map((_, i) => (i * 37 + (i >> 4)) & 0xff);

describe("binary transfers over I2C", () => {
  it("puts COBS data in chunks and reads it back: the JSON reply first, the data only after it", async () => {
    const r = await i2cRig({ profile: PICO });
    const data = payload(3000);
    const encoded = cobsEncode(data);
    expect(
      await r.host.request(
        JSON.stringify({ req: "card.binary.put", cobs: encoded.length, status: md5(data) }),
      ),
    ).toBe("{}\r\n");
    await r.host.send(Uint8Array.from([...encoded, 0x0a]));
    await r.clock.advance(10);
    expect(JSON.parse(await r.host.request('{"req":"card.binary"}'))).toMatchObject({
      length: 3000,
      status: md5(data),
    });

    await r.host.send(new TextEncoder().encode('{"req":"card.binary.get","offset":100,"length":2000}\n'));
    await r.clock.advance(6);
    // The first poll sees only the JSON reply.
    const reply = '{"status":"' + md5(data.subarray(100, 2100)) + '"}\r\n';
    expect((await r.host.readChunk(0)).available).toBe(reply.length);
    expect(new TextDecoder().decode(await r.host.receive())).toBe(reply);
    // Then the binary packet becomes available.
    const packet = await r.host.receive();
    expect(packet[packet.length - 1]).toBe(0x0a);
    expect(cobsDecode(packet.subarray(0, -1))).toEqual(data.subarray(100, 2100));
  });

  it("reports {bad-bin} when the data was corrupted on the bus, and the retry succeeds", async () => {
    const r = await i2cRig();
    const data = payload(500);
    const encoded = cobsEncode(data);
    await r.host.request(JSON.stringify({ req: "card.binary.put", cobs: encoded.length, status: md5(data) }));
    const corrupted = encoded.slice();
    corrupted[100] = corrupted[100]! ^ 0x01;
    if (corrupted[100] === 0x0a) corrupted[100] = 0x0b;
    await r.host.send(Uint8Array.from([...corrupted, 0x0a]));
    await r.clock.advance(10);
    const bad = JSON.parse(await r.host.request('{"req":"card.binary"}'));
    expect(bad.err).toMatch(/\{bad-bin\}/);
    await r.host.request(JSON.stringify({ req: "card.binary.put", cobs: encoded.length, status: md5(data) }));
    await r.host.send(Uint8Array.from([...encoded, 0x0a]));
    await r.clock.advance(10);
    expect(JSON.parse(await r.host.request('{"req":"card.binary"}'))).toMatchObject({ length: 500 });
  });
});
