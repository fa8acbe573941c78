import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { I2cTarget } from "../../../firmware/host/I2cTarget.js";
import { IDEAL } from "../../../hil/i2c/I2cHardwareProfile.js";
import { i2cRig } from "./i2cRig.js";

const enc = new TextEncoder();
const dec = new TextDecoder();

describe("I2C target: the serial-over-I2C chunk protocol", () => {
  it("answers a request sent in MTU chunks, read back in chunks", async () => {
    const r = await i2cRig();
    expect(await r.host.request('{"req":"echo","text":"hello over i2c"}')).toBe(
      '{"text":"hello over i2c"}\r\n',
    );
  });

  it("reports nothing available before a request, then the reply length after it", async () => {
    const r = await i2cRig();
    expect((await r.host.readChunk(0)).available).toBe(0);
    await r.host.send(enc.encode('{"req":"echo","text":"abc"}\n'));
    await r.clock.advance(6);
    const reply = '{"text":"abc"}\r\n';
    expect((await r.host.readChunk(0)).available).toBe(reply.length);
    const first = await r.host.readChunk(5);
    expect(dec.decode(first.data)).toBe(reply.slice(0, 5));
    expect(first.available).toBe(reply.length - 5);
  });

  it("never reports more than 253 available, and a long reply arrives whole", async () => {
    const r = await i2cRig({ host: { mtu: 253 } });
    const text = "x".repeat(1500);
    await r.host.send(enc.encode(JSON.stringify({ req: "echo", text }) + "\n"));
    await r.clock.advance(6);
    expect((await r.host.readChunk(0)).available).toBe(253);
    const reply = dec.decode(await r.host.receive());
    expect(JSON.parse(reply)).toEqual({ text });
  });

  it("pads a read longer than what is left with zeros and echoes the requested count", async () => {
    const r = await i2cRig();
    await r.host.send(enc.encode('{"req":"echo"}\n'));
    await r.clock.advance(6);
    const { data, available } = await r.host.readChunk(10);
    expect(dec.decode(data.subarray(0, 4))).toBe("{}\r\n");
    expect([...data.subarray(4)]).toEqual([0, 0, 0, 0, 0, 0]);
    expect(available).toBe(0);
  });

  it("answers a lone newline with \\r\\n and drops unread output (reset)", async () => {
    const r = await i2cRig();
    await r.host.send(enc.encode('{"req":"echo","text":"stale"}\n'));
    await r.clock.advance(6);
    await r.host.readChunk(3); // the host gives up mid-reply
    await r.host.send(enc.encode("\n"));
    await r.clock.advance(250);
    expect(dec.decode(await r.host.receive())).toBe("\r\n");
    expect(r.target.stats.resets).toBe(1);
    expect(await r.host.request('{"req":"echo","text":"fresh"}')).toBe('{"text":"fresh"}\r\n');
  });

  it("takes a lone newline as the end of a pending line, not as a reset", async () => {
    const r = await i2cRig({ host: { mtu: 13 } });
    // 26 bytes + newline: the newline goes alone in the third chunk.
    const request = '{"req":"echo","text":"ab"}';
    expect(request.length).toBe(26);
    expect(await r.host.request(request)).toBe('{"text":"ab"}\r\n');
    expect(r.target.stats.resets).toBe(0);
  });

  it("answers at a configured address only", async () => {
    const r = await i2cRig({ target: { address: 0x42 } });
    expect(await r.host.request('{"req":"echo","text":"x"}')).toBe('{"text":"x"}\r\n');
    expect((await r.bus.write(0x17, Uint8Array.from([0, 0]))).nack).toBe("address");
    expect(() => new I2cTarget(r.t.module, { address: 0x80 })).toThrow(RangeError);
  });

  it("counts malformed writes and takes what arrived", async () => {
    const r = await i2cRig();
    await r.bus.write(0x17, Uint8Array.from([5, 0x31, 0x32]));
    expect(r.target.stats.malformedWrites).toBe(1);
    await r.bus.write(0x17, new Uint8Array()); // an address probe is harmless
    expect(r.target.stats.writes).toBe(1);
  });

  it("gives the same replies as serial for any host MTU and any split", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 253 }),
        fc.string({ maxLength: 400 }),
        fc.integer({ min: 0, max: 5 }),
        async (mtu, text, gap) => {
          const r = await i2cRig({ profile: IDEAL, host: { mtu, queryGapMs: gap } });
          const json = JSON.stringify({ req: "echo", text });
          const serial = await r.t.line(json);
          expect(await r.host.request(json)).toBe(serial);
        },
      ),
      { numRuns: 60 },
    );
  });
});
