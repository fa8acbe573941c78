import { describe, expect, it } from "vitest";
import { BSC, PICO, i2cWireMicros } from "../../../hil/i2c/I2cHardwareProfile.js";
import { i2cRig } from "./i2cRig.js";

const enc = new TextEncoder();
const dec = new TextDecoder();
const REQUEST = '{"req":"echo","text":"a reply long enough for two reads"}';
const REPLY = '{"text":"a reply long enough for two reads"}\r\n';

describe("I2C hardware profiles", () => {
  it("bsc: a 32-byte note-c read (MTU 30) comes back corrupted past the 16-byte FIFO", async () => {
    const r = await i2cRig({ profile: BSC, host: { mtu: 14 } });
    await r.host.send(enc.encode(REQUEST + "\n"));
    await r.clock.advance(6);
    await r.clock.advance(2);
    const query = await r.bus.write(0x17, Uint8Array.from([0, 30]));
    expect(query.acked).toBe(true);
    await r.clock.advance(2);
    const read = await r.bus.read(0x17, 32);
    // The header and the first 14 data bytes were in the FIFO; the rest is the released bus.
    expect(read.underrun).toBe(16);
    expect(read.bytes[1]).toBe(30);
    expect(dec.decode(read.bytes.subarray(2, 16))).toBe(REPLY.slice(0, 14));
    expect([...read.bytes.subarray(16)]).toEqual(new Array(16).fill(0xff));
  });

  it("bsc: note-c's default MTU fails end to end; MTU 14 works", async () => {
    const bad = await i2cRig({ profile: BSC, host: { mtu: 30 } });
    // Writes of 31 bytes lose their tail in the 16-byte receive FIFO: the module never sees a
    // complete request, and the host times out or reads garbage.
    await expect(bad.host.request(REQUEST)).rejects.toThrow();
    const good = await i2cRig({ profile: BSC, host: { mtu: 14 } });
    expect(await good.host.request(REQUEST)).toBe(REPLY);
  });

  it("pico: the same 32-byte reads pass, the clock is stretched while the bridge stages", async () => {
    const r = await i2cRig({ profile: PICO, host: { mtu: 30, queryGapMs: 0 } });
    expect(await r.host.request(REQUEST)).toBe(REPLY);
    await r.host.send(enc.encode(REQUEST + "\n"));
    await r.clock.advance(6);
    await r.bus.write(0x17, Uint8Array.from([0, 30]));
    const read = await r.bus.read(0x17, 32);
    expect(read.underrun).toBe(0);
    expect(read.stretchedMs).toBe(PICO.stagingLatencyMs);
  });

  it("bsc: a read right after the query, before the daemon staged it, gets filler", async () => {
    const r = await i2cRig({ profile: BSC, host: { mtu: 14 } });
    await r.host.send(enc.encode('{"req":"echo"}\n'));
    await r.clock.advance(6);
    await r.bus.write(0x17, Uint8Array.from([0, 4]));
    const early = await r.bus.read(0x17, 6);
    expect(early.underrun).toBe(6);
    expect(r.target.stats.reads).toBe(0); // the answer is still waiting in the FIFO
  });

  it("reports wire time at the bus clock", async () => {
    expect(i2cWireMicros(30, 100_000)).toBeCloseTo(((9 * 31 + 2) * 1e6) / 1e5);
    const r = await i2cRig();
    const w = await r.bus.write(0x17, Uint8Array.from([0, 0]));
    expect(w.micros).toBeCloseTo(290);
  });
});

describe("I2C faults", () => {
  it("NACKs the address, and the host's request gets through on retry", async () => {
    const r = await i2cRig();
    r.bus.inject({ kind: "nack-address", count: 2 });
    await expect(r.host.request('{"req":"echo"}')).rejects.toThrow(/NACK \(address\)/);
    expect(r.bus.pendingFaults).toHaveLength(1);
    await expect(r.host.readChunk(0)).rejects.toThrow(/NACK/);
    // The partial line left by the failed write is ended by the host's reset newline.
    await r.host.send(enc.encode("\n"));
    await r.clock.advance(250);
    await r.host.receive().catch(() => undefined);
    await r.host.send(enc.encode("\n"));
    await r.clock.advance(250);
    expect(dec.decode(await r.host.receive())).toBe("\r\n");
    expect(await r.host.request('{"req":"echo"}')).toBe("{}\r\n");
  });

  it("a data NACK truncates the write; the module sees a partial chunk", async () => {
    const r = await i2cRig();
    r.bus.inject({ kind: "nack-data", afterBytes: 3 });
    const w = await r.bus.write(0x17, Uint8Array.from([5, 0x7b, 0x7d, 0x0a, 0x20, 0x20]));
    expect(w).toMatchObject({ acked: false, nack: "data", sent: 3 });
    expect(r.target.stats.malformedWrites).toBe(1);
  });

  it("late staging corrupts a bsc read but only slows a pico read", async () => {
    for (const [profile, corrupt] of [
      [BSC, true],
      [PICO, false],
    ] as const) {
      const r = await i2cRig({ profile, host: { mtu: 14 } });
      await r.host.send(enc.encode('{"req":"echo"}\n'));
      await r.clock.advance(6);
      r.bus.inject({ kind: "late-staging", ms: 5 });
      await r.bus.write(0x17, Uint8Array.from([0, 4]));
      await r.clock.advance(2);
      const read = await r.bus.read(0x17, 6);
      expect(read.underrun > 0).toBe(corrupt);
      if (!corrupt) expect(dec.decode(read.bytes.subarray(2))).toBe("{}\r\n");
    }
  });

  it("a truncated read loses the unread part of the chunk", async () => {
    const r = await i2cRig();
    await r.host.send(enc.encode('{"req":"echo","text":"abcdef"}\n'));
    await r.clock.advance(6);
    r.bus.inject({ kind: "truncate-read", bytes: 4 });
    await r.bus.write(0x17, Uint8Array.from([0, 8]));
    await r.clock.advance(2);
    const read = await r.bus.read(0x17, 10);
    expect(read.bytes.length).toBe(4);
    expect(r.target.stats.shortReads).toBe(1);
    // The 8 bytes were dequeued when staged: the next chunk starts after them.
    const rest = await r.host.readChunk(11);
    expect(dec.decode(rest.data)).toBe('"abcdef"}\r\n');
  });
});
