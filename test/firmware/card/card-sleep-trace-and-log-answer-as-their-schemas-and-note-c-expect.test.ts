import { describe, expect, it } from "vitest";
import { bootTestModule } from "../../support/moduleFixture.js";

describe("card.log, card.trace and card.sleep", () => {
  // note-c n_helpers.c NotePrint: `NoteNewRequest("card.log")` with `text`, logged to the
  // module's console; NoteRequest only checks that the reply has no err.
  it("card.log puts the host's text on the module's console (its log) and answers {}", async () => {
    const t = await bootTestModule();
    expect(await t.req({ req: "card.log", text: "sensor read failed" })).toEqual({});
    expect(t.log.lines).toContainEqual(
      expect.objectContaining({ level: "info", message: "host", fields: { text: "sensor read failed" } }),
    );
    expect(await t.req({ req: "card.log" })).toEqual({});
  });

  // card.trace.req schema: `mode` enum on, off; the rsp schema has no members.
  // Trace mode shows the host's lines as they arrive: the test sends raw lines, as a host does.
  it("card.trace mode:on logs every request and reply until mode:off or a restart", async () => {
    const t = await bootTestModule();
    const traced = () => t.log.lines.filter((l) => /card\.version/.test(JSON.stringify(l))).length;
    await t.line('{"req":"card.version"}');
    expect(traced()).toBe(0);
    expect(await t.req({ req: "card.trace", mode: "on" })).toEqual({});
    await t.line('{"req":"card.version"}');
    const on = traced();
    expect(on).toBeGreaterThan(0);
    expect(await t.req({ req: "card.trace", mode: "off" })).toEqual({});
    await t.line('{"req":"card.version"}');
    expect(traced()).toBe(on);
    await t.req({ req: "card.trace", mode: "on" });
    const again = await t.reboot();
    await again.line('{"req":"card.version"}');
    expect(again.log.lines.filter((l) => /card\.version/.test(JSON.stringify(l)))).toHaveLength(0);
    expect((await again.req({ req: "card.trace", mode: "loud" })).err).toBe(
      'card.trace: mode "loud" is not one of on, off',
    );
  });

  // card.sleep.req schema: WIFI only; `on`, `off`, `seconds` (minimum 30), `mode` accel/-accel;
  // the rsp schema: `mode`, `off`, `on`, `seconds`.
  it("card.sleep keeps the WiFi module's sleep settings and answers them", async () => {
    const t = await bootTestModule({ variant: "wifi" });
    expect(await t.req({ req: "card.sleep" })).toEqual({ off: true });
    expect(await t.req({ req: "card.sleep", on: true, mode: "accel" })).toEqual({ on: true, mode: "accel" });
    expect(await t.req({ req: "card.sleep", seconds: 60 })).toEqual({ on: true, seconds: 60, mode: "accel" });
    const again = await t.reboot();
    expect(await again.req({ req: "card.sleep" })).toEqual({ on: true, seconds: 60, mode: "accel" });
    expect(await again.req({ req: "card.sleep", mode: "-accel", seconds: -1 })).toEqual({ on: true });
    expect(await again.req({ req: "card.sleep", off: true })).toEqual({ off: true });
  });

  it("card.sleep refuses what the schema does not allow", async () => {
    const t = await bootTestModule({ variant: "wifi" });
    expect((await t.req({ req: "card.sleep", seconds: 10 })).err).toBe(
      "card.sleep: seconds must be at least 30, or -1 to reset (got 10)",
    );
    expect((await t.req({ req: "card.sleep", mode: "motion" })).err).toMatch(/not one of accel, -accel/);
    expect((await t.req({ req: "card.sleep", on: true, off: true })).err).toMatch(/\{incompatible\}/);
    expect(await t.req({ req: "card.sleep" })).toEqual({ off: true });
    const cell = await bootTestModule({ variant: "cell-wifi" });
    expect((await cell.req({ req: "card.sleep", on: true })).err).toMatch(
      /^request not supported for .* \{not-supported\}$/,
    );
  });
});
