// Source: blues/notecard-schema note.template.req.notecard.api.json (`delete` is a template
// attribute; `port` "required on Notecard LoRa and a Notecard paired with Starnote, but ignored on
// all other Notecards") and note.template.rsp.notecard.api.json (`delete` reported by verify;
// samples {"bytes":40}, {"template":true,"body":...,"bytes":40} and
// {"template":true,"format":"compact","bytes":25}).
import { describe, expect, it } from "vitest";
import { bootTestModule } from "../../support/moduleFixture.js";

const readings = { new_vals: true, temperature: 14.1, humidity: 11, pump_state: "4" };

describe("note.template delete (notecard-schema note.template.req/.rsp: a template attribute)", () => {
  it("sets the template with the attribute, answers {bytes}, and verify reports delete:true", async () => {
    const t = await bootTestModule();
    expect(await t.req({ req: "note.template", file: "readings.qo", body: readings, delete: true })).toEqual({
      bytes: 40,
    });
    expect(await t.req({ req: "note.template", file: "readings.qo", verify: true })).toEqual({
      template: true,
      body: readings,
      bytes: 40,
      delete: true,
    });
    // Notes are fitted to it: the template is in force.
    expect(await t.req({ req: "note.add", file: "readings.qo", body: { humidity: 50 } })).toEqual({
      total: 1,
      template: true,
    });
  });

  it("is part of the template: the same body without delete is a new template", async () => {
    const t = await bootTestModule();
    await t.req({ req: "note.template", file: "r.qo", body: readings, delete: true });
    await t.req({ req: "note.template", file: "r.qo", body: readings });
    expect((await t.req({ req: "note.template", file: "r.qo", verify: true })).delete).toBeUndefined();
  });

  it("survives a restart with the template", async () => {
    const t = await bootTestModule();
    await t.req({ req: "note.template", file: "r.dbs", body: { a: 11 }, delete: true });
    const again = await t.reboot();
    expect(await again.req({ req: "note.template", file: "r.dbs", verify: true })).toMatchObject({
      delete: true,
    });
  });
});

describe("note.template port (notecard-schema note.template.req: ignored except on LoRa and Starnote)", () => {
  it("accepts a port another notefile uses on a cellular module, and keeps none", async () => {
    const t = await bootTestModule();
    expect(await t.req({ req: "note.template", file: "a.qo", body: {}, port: 7 })).toEqual({ bytes: 23 });
    expect(await t.req({ req: "note.template", file: "b.qo", body: {}, port: 7 })).toEqual({ bytes: 23 });
    expect((await t.req({ req: "note.template", file: "b.qo", verify: true })).port).toBeUndefined();
  });

  it.each(["lora", "ntn"] as const)("keeps the port and refuses one in use on %s", async (variant) => {
    const t = await bootTestModule({ variant });
    const compact = { req: "note.template", body: { a: 11 }, format: "compact" };
    await t.req({ ...compact, file: "a.qo", port: 7 });
    expect((await t.req({ ...compact, file: "b.qo", port: 7 })).err).toBe(
      "template port 7 is already used by a.qo",
    );
    expect((await t.req({ req: "note.template", file: "a.qo", verify: true })).port).toBe(7);
  });
});

describe("note.template replies (notecard-schema note.template.rsp samples)", () => {
  it("answers {bytes} when setting a template (sample: Template Set Response)", async () => {
    const t = await bootTestModule();
    expect(await t.req({ req: "note.template", file: "readings.qo", body: readings })).toEqual({ bytes: 40 });
  });

  it("answers {template, body, bytes} for verify (sample: Template Verify Response)", async () => {
    const t = await bootTestModule();
    const body = { temperature: 14.1, humidity: 11 };
    const set = await t.req({ req: "note.template", file: "r.qo", body });
    expect(await t.req({ req: "note.template", file: "r.qo", verify: true })).toEqual({
      template: true,
      body,
      bytes: set.bytes,
    });
  });

  it("answers {template, format, bytes} when setting a compact template (sample: Template with Format Response)", async () => {
    const t = await bootTestModule();
    const reply = await t.req({ req: "note.template", file: "r.qo", body: readings, format: "compact" });
    expect(reply).toEqual({ template: true, format: "compact", bytes: reply.bytes });
    expect(reply.bytes).toBeGreaterThan(0);
    expect((await t.req({ req: "note.template", file: "r.qo", verify: true })).bytes).toBe(reply.bytes);
  });

  it("answers {} for verify without a template, and for a template removed by a request without body", async () => {
    const t = await bootTestModule();
    expect(await t.req({ req: "note.template", file: "r.qo", verify: true })).toEqual({});
    await t.req({ req: "note.template", file: "r.qo", body: readings });
    expect(await t.req({ req: "note.template", file: "r.qo" })).toEqual({});
    expect(await t.req({ req: "note.template", file: "r.qo", verify: true })).toEqual({});
  });
});
