import { describe, expect, it } from "vitest";
import { bootTestModule } from "../../support/moduleFixture.js";

/*
 * The ntn.* requests of the public notecard-schema: ntn.status (CELL, CELL+WIFI, WIFI; rsp samples
 * `{"status":"{ntn-idle}"}`, `{"status":"{ntn-idle}{ntn-unknown-location}"}` and
 * `{"err":"no NTN module is connected {no-ntn-module}"}`), ntn.gps (`on`/`off`, default off;
 * also SKYLO) and ntn.reset (clears the pairing, which card.restore keeps; also SKYLO).
 */
describe("ntn requests", () => {
  it("ntn.status on a cellular module without a Starnote answers the schema's {no-ntn-module} error", async () => {
    for (const variant of ["cell", "cell-wifi", "wifi"]) {
      const t = await bootTestModule({ variant });
      expect((await t.req({ req: "ntn.status" })).err).toBe("no NTN module is connected {no-ntn-module}");
    }
  });

  it("ntn.status with a Starnote wired answers {ntn-idle}", async () => {
    const t = await bootTestModule({ variant: "cell+starnote" });
    expect(await t.req({ req: "ntn.status" })).toEqual({ status: "{ntn-idle}" });
  });

  it("ntn.gps on: the module supplies its location; none known yet is {ntn-unknown-location}", async () => {
    const t = await bootTestModule({ variant: "cell+starnote" });
    expect(await t.req({ req: "ntn.gps" })).toEqual({ off: true });
    expect(await t.req({ req: "ntn.gps", on: true })).toEqual({ on: true });
    expect(await t.req({ req: "ntn.gps" })).toEqual({ on: true });
    expect(await t.req({ req: "ntn.status" })).toEqual({ status: "{ntn-idle}{ntn-unknown-location}" });
    await t.req({ req: "card.location.mode", mode: "fixed", lat: 42.5, lon: -71.1 });
    expect(await t.req({ req: "ntn.status" })).toEqual({ status: "{ntn-idle}" });
    expect(await t.req({ req: "ntn.gps", off: true })).toEqual({ off: true });
    expect((await t.req({ req: "ntn.gps", on: true, off: true })).err).toMatch(/\{incompatible\}/);
    // The setting is in flash.
    const again = await t.reboot();
    expect(await again.req({ req: "ntn.gps" })).toEqual({ off: true });
  });

  it("ntn.reset forgets the Starnote until the module restarts and finds it again", async () => {
    const t = await bootTestModule({ variant: "wifi+starnote" });
    expect(await t.req({ req: "ntn.reset" })).toEqual({});
    expect((await t.req({ req: "ntn.status" })).err).toMatch(/\{no-ntn-module\}$/);
    const again = await t.reboot();
    expect(await again.req({ req: "ntn.status" })).toEqual({ status: "{ntn-idle}" });
  });

  it("the Skylo module has ntn.gps and ntn.reset but not ntn.status", async () => {
    const t = await bootTestModule({ variant: "ntn" });
    expect(await t.req({ req: "ntn.gps", on: true })).toEqual({ on: true });
    expect(await t.req({ req: "ntn.reset" })).toEqual({});
    expect((await t.req({ req: "ntn.status" })).err).toBe("request not supported for ntn {not-supported}");
  });

  it("a Starnote adds the satellite transports and makes templates need a port and the compact format", async () => {
    const t = await bootTestModule({ variant: "cell+starnote" });
    expect(await t.req({ req: "card.transport", method: "ntn" })).toMatchObject({ method: "ntn" });
    expect((await t.req({ req: "card.wireless" })).net).toMatchObject({ rat: "ntn" });
    const file = "commands.qi";
    expect((await t.req({ req: "note.template", file, body: { on: true } })).err).toMatch(/port/);
    expect(
      await t.req({ req: "note.template", file, body: { on: true }, port: 7, format: "compact" }),
    ).toMatchObject({ template: true, format: "compact" });
    const plain = await bootTestModule({ variant: "cell" });
    expect(await plain.req({ req: "note.template", file, body: { on: true } })).toEqual({
      bytes: expect.any(Number),
    });
  });
});
