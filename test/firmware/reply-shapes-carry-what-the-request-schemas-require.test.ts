import { describe, expect, it } from "vitest";
import { bootTestModule } from "../support/moduleFixture.js";

/**
 * Replies leave zero, false and empty members out, except where the vendor's request schemas
 * (blues/notecard-schema, `<req>.rsp.notecard.api.json`) require a member or their samples show
 * one. Each case names the schema file and field it follows (see docs/module.md, "Reply shapes").
 */
describe("reply shapes follow the request schemas", () => {
  it("card.location answers a mode of the schema's enum (continuous, periodic, off), also in fixed mode", async () => {
    // card.location.rsp: `mode` enum ["continuous", "periodic", "off"]; `fixed` is only in
    // card.location.mode's enum. A fixed place is reported as lat/lon with the GPS off.
    const t = await bootTestModule();
    await t.req({ req: "card.location.mode", mode: "fixed", lat: 42.5776, lon: -70.87134 });
    const reply = await t.req({ req: "card.location" });
    expect(reply).toMatchObject({ mode: "off", lat: 42.5776, lon: -70.87134 });
    expect(["continuous", "periodic", "off"]).toContain(reply["mode"]);
    expect(await t.req({ req: "card.location.mode" })).toMatchObject({ mode: "fixed" });
  });

  it('card.wireless.penalty outside a box answers the "No Active Penalty" sample {"minutes":0,"count":0}', async () => {
    // card.wireless.penalty.rsp samples: "No Active Penalty" -> {"minutes":0,"count":0}.
    const t = await bootTestModule();
    expect(await t.req({ req: "card.wireless.penalty" })).toEqual({ minutes: 0, count: 0 });
  });

  it("dfu.status always carries mode and on: on:false beside off:true", async () => {
    // dfu.status.rsp: `required: ["mode", "on"]`.
    const t = await bootTestModule();
    expect(await t.req({ req: "dfu.status", off: true })).toMatchObject({
      mode: "idle",
      off: true,
      on: false,
    });
    expect(await t.req({ req: "dfu.status" })).toMatchObject({ mode: "idle", on: false, off: true });
    const on = await t.req({ req: "dfu.status", on: true });
    expect(on).toMatchObject({ mode: "idle", on: true });
    expect(on["off"]).toBeUndefined();
  });

  it("env.set and env.modified always carry time: 0 while nothing is dated", async () => {
    // env.set.rsp and env.modified.rsp: `required: ["time"]`.
    const t = await bootTestModule({ timeKnown: false });
    expect(await t.req({ req: "env.modified" })).toEqual({ time: 0 });
    expect(await t.req({ req: "env.set", name: "a", text: "1" })).toEqual({ time: 0 });
    const dated = await bootTestModule({ timeKnown: true });
    const now = dated.module.time();
    expect(await dated.req({ req: "env.set", name: "a", text: "1" })).toEqual({ time: now });
    expect(await dated.req({ req: "env.modified" })).toEqual({ time: now });
  });

  it("note.changes gives every note its time, 0 for a note added before the clock was set", async () => {
    // note.changes.rsp: notes.additionalProperties `required: ["body", "time"]`.
    const t = await bootTestModule({ timeKnown: false });
    await t.req({ req: "note.add", file: "x.db", note: "n1", body: { a: 1 } });
    t.module.setTime(1_800_000_000);
    await t.req({ req: "note.add", file: "x.db", note: "n2", body: { a: 2 } });
    expect((await t.req({ req: "note.changes", file: "x.db" })).notes).toEqual({
      n1: { body: { a: 1 }, time: 0 },
      n2: { body: { a: 2 }, time: t.module.time() },
    });
  });

  it("card.status always carries usb, false on battery", async () => {
    // card.status.rsp: `required: ["status", "usb"]`.
    const t = await bootTestModule();
    t.power.onUsb = false;
    expect(await t.req({ req: "card.status" })).toMatchObject({ status: "{normal}", usb: false });
  });

  it("card.illumination without a sensor answers the error text the schema gives", async () => {
    // card.illumination.req description: "If no OPT3001 sensor is detected, this request returns
    // an 'illumination sensor is not available' error."
    const t = await bootTestModule();
    expect(await t.req({ req: "card.illumination" })).toEqual({
      err: "illumination sensor is not available",
    });
  });
});
