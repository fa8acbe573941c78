import { afterEach, describe, expect, it } from "vitest";
import { SeededRandom } from "../../core/SeededRandom.js";
import { randomBytes } from "../../core/Random.js";
import { Scenario } from "../../harness/Scenario.js";

const payload = (n: number) => randomBytes(new SeededRandom("binary"), n);

describe("binary transfers by a note-c host over serial", () => {
  let sc: Scenario | undefined;
  afterEach(async () => {
    await sc?.close();
    sc = undefined;
  });

  it("puts 20 KB in chunks and gets it back, COBS and MD5 checked at both ends", async () => {
    sc = await Scenario.start({ serial: { baud: 115_200 } });
    const host = sc.attachNoteC();
    const data = payload(20_000);
    for (let offset = 0; offset < data.length; offset += 4096) {
      expect(await host.binaryPut(data.subarray(offset, offset + 4096), offset)).toBeUndefined();
    }
    const back: number[] = [];
    for (let offset = 0; offset < data.length; offset += 5000) {
      const got = await host.binaryGet(offset, Math.min(5000, data.length - offset));
      expect("data" in got, JSON.stringify(got)).toBe(true);
      back.push(...(got as { data: Uint8Array }).data);
    }
    expect(back).toEqual([...data]);
    // Binary data is sent without pauses but never meets the receive buffer's text drain rate.
    expect(sc.overflows).toHaveLength(0);
    const gets = sc.traffic.lines.filter((l) => l.request?.["req"] === "card.binary.get");
    expect(gets.every((l) => l.replyAfter !== undefined && l.replyAfter.at(-1) === 0x0a)).toBe(true);
    sc.ignore((r) => String(r["req"]).startsWith("card.binary"));
    await sc.finish();
  });

  it("a damaged binary packet is refused {bad-bin}, and note-c puts it again", async () => {
    // Flip a byte well inside the first COBS packet (the JSON before it is about 170 bytes).
    sc = await Scenario.start({
      serial: { impair: { h2m: [{ flip: { at: 400, mask: 0x10 } }] } },
      capture: true,
    });
    const host = sc.attachNoteC();
    const data = payload(1000);
    expect(await host.binaryPut(data)).toBeUndefined();
    expect(host.events.some((e) => e.event === "retry" && /\{bad-bin\}/.test(e.detail ?? ""))).toBe(true);
    const got = await host.binaryGet(0, 1000);
    expect([...(got as { data: Uint8Array }).data]).toEqual([...data]);
    const puts = sc.traffic.lines.filter((l) => l.request?.["req"] === "card.binary.put");
    expect(puts).toHaveLength(2);
    expect(sc.traffic.lines.filter((l) => l.kind === "binary")).toHaveLength(2);
    sc.ignore(() => true);
    await sc.finish();
  });

  it("refuses a put at the wrong offset, as note-c does, without touching the module", async () => {
    sc = await Scenario.start();
    const host = sc.attachNoteC();
    expect(await host.binaryPut(payload(10), 5)).toBe("notecard data length is misaligned with offset");
    expect(sc.traffic.lines.filter((l) => l.request?.["req"] === "card.binary.put")).toHaveLength(0);
    sc.ignore(() => true);
    await sc.finish();
  });
});
