import { describe, expect, it } from "vitest";
import { bootTestModule } from "../../support/moduleFixture.js";

const healthNotes = (t: Awaited<ReturnType<typeof bootTestModule>>) => [
  ...(t.module.notebox.file("_health.qo")?.notes.values() ?? []),
];

describe("card.voltage usb monitoring", () => {
  it("queues a _health.qo note dated at each USB change when usb and alert are on", async () => {
    const t = await bootTestModule({ timeKnown: true });
    const reply = await t.req({ req: "card.voltage", usb: true, alert: true, sync: true });
    expect(reply).toMatchObject({ alert: true, sync: true });
    const pluggedAt = Math.floor(t.clock.now() / 1000) + 60;
    await t.clock.advance(60_000);
    t.power.set({ volts: 5.0, onUsb: true });
    await t.clock.advance(30_000); // the note is written in the background, dated at the change
    t.power.set({ volts: 3.9, onUsb: false });
    await t.req({ req: "card.status" }); // waits for queued background work
    const notes = healthNotes(t);
    expect(notes.map((n) => n.body)).toEqual([
      { text: "USB power connected", voltage: 5.0 },
      { text: "USB power disconnected", voltage: 3.9 },
    ]);
    expect(notes.map((n) => n.time)).toEqual([pluggedAt, pluggedAt + 30]);
  });

  it("logs nothing without alert, or once monitoring is turned off", async () => {
    const t = await bootTestModule();
    await t.req({ req: "card.voltage", usb: true });
    t.power.onUsb = true;
    await t.req({ req: "card.voltage", usb: false, alert: true });
    t.power.onUsb = false;
    await t.req({ req: "card.status" });
    expect(healthNotes(t)).toEqual([]);
  });

  it("keeps watching after a reboot and stops when the module is closed", async () => {
    const t = await bootTestModule();
    await t.req({ req: "card.voltage", usb: true, alert: true });
    await t.module.close(); // power off: the old module stops following the supply
    const again = await t.reboot();
    again.power.onUsb = true;
    await again.req({ req: "card.status" });
    expect(healthNotes(again)).toHaveLength(1);
    expect(healthNotes(again)[0]!.time).toBe(0); // time unknown
    await again.module.close();
    again.power.onUsb = false; // no longer followed: must not touch a closed store
    expect(healthNotes(again)).toHaveLength(1);
  });
});
