import { describe, expect, it } from "vitest";
import { ENV_KEYS, Environment, type HubEnvironment } from "../../../firmware/env/Environment.js";
import { bootTestModule, type TestModule } from "../../support/moduleFixture.js";

/** What the sync engine does when a session delivers the hub's values. */
async function deliver(t: TestModule, hub: HubEnvironment): Promise<void> {
  await t.module.notebox.transact(() => t.module.notebox.setConfig(ENV_KEYS.hub, hub));
}

describe("environment variable precedence", () => {
  it("resolves env.set over device, fleet and project hub values, over env.default", async () => {
    const t = await bootTestModule({ timeKnown: true });
    const get = async (name: string) => (await t.req({ req: "env.get", name })).text;
    await t.req({ req: "env.default", name: "level", text: "default" });
    expect(await get("level")).toBe("default");
    await deliver(t, { project: { level: "project" }, time: 1 });
    expect(await get("level")).toBe("project");
    await deliver(t, { project: { level: "project" }, fleet: { level: "fleet" }, time: 2 });
    expect(await get("level")).toBe("fleet");
    await deliver(t, {
      project: { level: "project" },
      fleet: { level: "fleet" },
      device: { level: "device" },
      time: 3,
    });
    expect(await get("level")).toBe("device");
    await t.req({ req: "env.set", name: "level", text: "local" });
    expect(await get("level")).toBe("local");
    // Deleting the local value uncovers the hub's again; a new default does not override the hub.
    await t.req({ req: "env.set", name: "level" });
    await t.req({ req: "env.default", name: "level", text: "other default" });
    expect(await get("level")).toBe("device");
  });

  it("treats names case-insensitively across every layer", async () => {
    const t = await bootTestModule();
    await t.req({ req: "env.default", name: "Pump-Mode", text: "auto" });
    await deliver(t, { device: { PUMP_RATE: "5" } });
    expect((await t.req({ req: "env.get", name: "pump-mode" })).text).toBe("auto");
    expect((await t.req({ req: "env.get", name: "pump_rate" })).text).toBe("5");
    await t.req({ req: "env.default", name: "PUMP-MODE", text: "manual" });
    expect((await t.req({ req: "env.get" })).body).toEqual({ "PUMP-MODE": "manual", PUMP_RATE: "5" });
    await t.req({ req: "env.default", name: "pump-mode" });
    expect((await t.req({ req: "env.get" })).body).toEqual({ PUMP_RATE: "5" });
  });

  it("deletes with an empty or absent text and keeps everything across reboots", async () => {
    const t = await bootTestModule();
    await t.req({ req: "env.default", name: "a", text: "1" });
    await t.req({ req: "env.default", name: "b", text: "2" });
    await t.req({ req: "env.set", name: "c", text: "3" });
    await t.req({ req: "env.default", name: "b", text: "" });
    const again = await t.reboot();
    expect((await again.req({ req: "env.get" })).body).toEqual({ c: "3", a: "1" });
    await again.req({ req: "env.set", name: "c", text: "" });
    expect((await again.req({ req: "env.get" })).body).toEqual({ a: "1" });
  });

  it("requires a name and checks types", async () => {
    const t = await bootTestModule();
    for (const req of ["env.default", "env.set"]) {
      expect((await t.req({ req, text: "x" })).err).toBe(`${req}: name is required`);
      expect((await t.req({ req, name: "", text: "x" })).err).toBe(`${req}: name is required`);
      expect((await t.req({ req, name: "n", text: 5 })).err).toMatch(/\{io\}/);
    }
    expect((await t.req({ req: "env.default", name: "n", text: "x", sync: "yes" })).err).toMatch(/\{io\}/);
    expect(await t.req({ req: "env.get" })).toEqual({});
  });

  it("remembers which defaults the host wants shown on the hub (sync)", async () => {
    const t = await bootTestModule();
    await t.req({ req: "env.default", name: "shown", text: "1", sync: true });
    await t.req({ req: "env.default", name: "hidden", text: "2" });
    const defaults = Object.fromEntries(new Environment(t.module.notebox).defaults().map((d) => [d.name, d]));
    expect(defaults["shown"]!.sync).toBe(true);
    expect(defaults["hidden"]!.sync).toBeUndefined();
  });

  it("treats names that are object members in JavaScript like any other name", async () => {
    const t = await bootTestModule({ variant: "lora" });
    await t.req({
      req: "env.template",
      body: JSON.parse('{"__proto__":"10","constructor":11,"toString":true}'),
    });
    expect((await t.req({ req: "env.get", name: "constructor" })).text).toBeUndefined();
    await t.req({ req: "env.default", name: "__proto__", text: "a" });
    await t.req({ req: "env.set", name: "Constructor", text: "b" });
    await t.req({ req: "env.default", name: "toString", text: "c" });
    const again = await t.reboot();
    expect((await again.req({ req: "env.get", name: "__PROTO__" })).text).toBe("a");
    expect((await again.req({ req: "env.get", names: ["__proto__", "constructor"] })).body).toEqual(
      JSON.parse('{"__proto__":"a","constructor":"b"}'),
    );
    expect(JSON.stringify((await again.req({ req: "env.get" })).body)).toBe(
      '{"Constructor":"b","__proto__":"a","toString":"c"}',
    );
    expect((await again.req({ req: "card.voltage", mode: "toString" })).err).toMatch(/is neither a preset/);
  });
});
