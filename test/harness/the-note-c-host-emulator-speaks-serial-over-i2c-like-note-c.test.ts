import { afterEach, describe, expect, it } from "vitest";
import { randomBytes } from "../../core/Random.js";
import { SeededRandom } from "../../core/SeededRandom.js";
import { Scenario } from "../../harness/Scenario.js";

describe("the note-c host emulator over I2C", () => {
  let sc: Scenario | undefined;
  afterEach(async () => {
    await sc?.close();
    sc = undefined;
  });

  it("frames requests in 30-byte chunks with note-c's pauses and polls [0][0] for the reply", async () => {
    sc = await Scenario.start({ i2c: {}, capture: true, timeKnown: true });
    const host = sc.attachNoteC({ transport: "i2c" });
    const body = { text: "n".repeat(100) };
    expect(await host.request({ req: "note.add", file: "data.qo", body })).toEqual({ total: 1 });
    await sc.expectHostRequest((r) => r["req"] === "note.add");
    const tx = sc.capture!.entries.filter((e) => e.link === "i2c.host" && e.kind !== "event");
    // The reset: a lone newline.
    expect(tx[0]).toMatchObject({ t: 256, kind: "i2c-w", hex: "010a" });
    const writes = tx.filter((e) => e.kind === "i2c-w" && !e.hex.startsWith("00") && e.t > 1000);
    // Chunks of at most 30 bytes, each announced by its length, 26 ms apart (6 before, 20 after).
    expect(
      writes.every((w) => parseInt(w.hex.slice(0, 2), 16) === w.hex.length / 2 - 1 && w.hex.length <= 62),
    ).toBe(true);
    expect(writes.slice(1).map((w, i) => w.t - writes[i]!.t)).toEqual(writes.slice(1).map(() => 26));
    const request = Buffer.from(writes.map((w) => w.hex.slice(2)).join(""), "hex").toString();
    expect(request).toMatch(
      /^\{"req":"note.add","file":"data.qo","body":\{"text":"n+"\},"crc":"0000:[0-9A-F]{8}"\}\n$/,
    );
    // Reads ask for at most 30 bytes and get [available][R][R bytes].
    const reads = tx.filter((e) => e.kind === "i2c-r");
    for (const r of reads) expect(parseInt(r.hex.slice(2, 4), 16)).toBe(r.hex.length / 2 - 2);
    expect(reads.every((r) => r.hex.length / 2 <= 32)).toBe(true);
    await sc.finish();
  });

  it("fails on the BSC profile with note-c's 30-byte chunks, works with chunks that fit its 16-byte FIFOs, and on pico", async () => {
    sc = await Scenario.start({ i2c: { profile: "bsc" } });
    const bsc = sc.attachNoteC({ transport: "i2c" });
    const failed = await bsc.request({ req: "echo", text: "a request longer than sixteen bytes" });
    expect(failed["err"]).toMatch(/\{io\}/);
    expect(sc.i2c!.target.stats.shortReads + sc.i2c!.target.stats.malformedWrites).toBeGreaterThan(0);
    sc.ignore(() => true);
    await sc.close();

    sc = await Scenario.start({ i2c: { profile: "bsc" } });
    const small = sc.attachNoteC({ transport: "i2c", timing: { i2cMtu: 14 } });
    expect(await small.request({ req: "echo", text: "a request longer than sixteen bytes" })).toEqual({
      text: "a request longer than sixteen bytes",
    });
    sc.ignore(() => true);
    await sc.finish();

    sc = await Scenario.start({ i2c: { profile: "pico" } });
    const pico = sc.attachNoteC({ transport: "i2c" });
    expect(await pico.request({ req: "echo", text: "a request longer than sixteen bytes" })).toEqual({
      text: "a request longer than sixteen bytes",
    });
    sc.ignore(() => true);
    await sc.finish();
  });

  it("retries after a NACK, a truncated read and a late answer, each deterministic by transaction", async () => {
    sc = await Scenario.start({
      i2c: {
        profile: "bsc",
        impair: [{ nack: { at: 40 } }, { truncate: { at: 30, bytes: 3 } }, { late: { at: 40, ms: 5 } }],
      },
      capture: true,
    });
    const host = sc.attachNoteC({ transport: "i2c", timing: { i2cMtu: 14 } });
    for (let i = 0; i < 6; i++) {
      expect(await host.request({ req: "echo", text: `ping ${i}` })).toEqual({ text: `ping ${i}` });
    }
    const impairs = sc.capture!.entries.filter((e) => e.kind === "impair").map((e) => e.info?.["impairment"]);
    expect(impairs.sort()).toEqual(["late", "nack", "truncate"]);
    expect(host.noteC.stats.retries).toBeGreaterThanOrEqual(2);
    expect(host.noteC.stats.failures).toBe(0);
    sc.ignore(() => true);
    await sc.finish();
  });

  it("moves binary data both ways over I2C", async () => {
    sc = await Scenario.start({ i2c: { profile: "pico" } });
    const host = sc.attachNoteC({ transport: "i2c" });
    const data = randomBytes(new SeededRandom("i2c-binary"), 3000);
    expect(await host.binaryPut(data)).toBeUndefined();
    const got = await host.binaryGet(0, 3000);
    expect([...(got as { data: Uint8Array }).data]).toEqual([...data]);
    sc.ignore(() => true);
    await sc.finish();
  });

  it("refuses I2C hosts where there is no I2C link, and serial impairments stay serial", async () => {
    sc = await Scenario.start();
    expect(() => sc!.attachNoteC({ transport: "i2c" })).toThrow(/no I2C link/);
    await expect(
      Scenario.start({ i2c: { impair: [{ late: { at: 0, ms: 1 } }, { bogus: {} } as never] } }),
    ).rejects.toThrow(/one of nack, truncate, late/);
  });
});
