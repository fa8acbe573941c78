import { describe, expect, it } from "vitest";
import { ENV_KEYS } from "../../../firmware/env/Environment.js";
import { bootTestModule } from "../../support/moduleFixture.js";

const NOT_MODIFIED = "environment hasn't been modified {env-not-modified}";

describe("env.get and env.modified", () => {
  it("reports one name as text, a list or all as body, with the time of the change", async () => {
    const t = await bootTestModule({ timeKnown: true });
    const start = Math.floor(t.clock.now() / 1000);
    await t.req({ req: "env.default", name: "monitor-pump-one", text: "on" });
    await t.clock.advance(10_000);
    await t.req({ req: "env.default", name: "monitor-pump-two", text: "off" });
    expect(await t.req({ req: "env.get", name: "monitor-pump-one" })).toEqual({ text: "on", time: start });
    expect(
      await t.req({ req: "env.get", names: ["monitor-pump-two", "MONITOR-PUMP-ONE", "missing"] }),
    ).toEqual({
      body: { "monitor-pump-two": "off", "MONITOR-PUMP-ONE": "on" },
      time: start + 10,
    });
    expect(await t.req({ req: "env.get" })).toEqual({
      body: { "monitor-pump-one": "on", "monitor-pump-two": "off" },
      time: start + 10,
    });
    expect(await t.req({ req: "env.modified" })).toEqual({ time: start + 10 });
    expect(await t.req({ req: "env.set", name: "x", text: "1" })).toEqual({ time: start + 10 });
  });

  it("answers {env-not-modified} when nothing changed after the given time", async () => {
    const t = await bootTestModule({ timeKnown: true });
    const start = Math.floor(t.clock.now() / 1000);
    await t.req({ req: "env.default", name: "a", text: "1" });
    expect((await t.req({ req: "env.get", time: start })).err).toBe(NOT_MODIFIED);
    expect((await t.req({ req: "env.get", name: "a", time: start })).err).toBe(NOT_MODIFIED);
    expect((await t.req({ req: "env.modified", time: start })).err).toBe(NOT_MODIFIED);
    expect(await t.req({ req: "env.get", time: start - 1 })).toEqual({ body: { a: "1" }, time: start });
    expect(await t.req({ req: "env.modified", time: start - 1 })).toEqual({ time: start });
  });

  it("dates a change only when an effective value changed", async () => {
    const t = await bootTestModule({ timeKnown: true });
    const start = Math.floor(t.clock.now() / 1000);
    await t.req({ req: "env.set", name: "a", text: "local" });
    await t.clock.advance(60_000);
    await t.req({ req: "env.default", name: "a", text: "hidden under the local value" });
    expect(await t.req({ req: "env.modified" })).toEqual({ time: start });
    await t.req({ req: "env.set", name: "a", text: "local" });
    expect(await t.req({ req: "env.modified" })).toEqual({ time: start });
    await t.req({ req: "env.set", name: "a" });
    expect(await t.req({ req: "env.modified" })).toEqual({ time: start + 60 });
  });

  it("counts a hub delivery as a change at its time", async () => {
    const t = await bootTestModule({ timeKnown: true });
    await t.module.notebox.transact(() =>
      t.module.notebox.setConfig(ENV_KEYS.hub, { device: { b: "2" }, time: 1_900_000_000 }),
    );
    expect(await t.req({ req: "env.modified" })).toEqual({ time: 1_900_000_000 });
    expect(await t.req({ req: "env.get", name: "b" })).toEqual({ text: "2", time: 1_900_000_000 });
  });

  it("while the time is unknown, dates nothing: env.get leaves time out, env.modified answers time 0", async () => {
    const t = await bootTestModule();
    await t.req({ req: "env.default", name: "a", text: "1" });
    expect(await t.req({ req: "env.get", name: "a" })).toEqual({ text: "1" });
    // env.modified.rsp.notecard.api.json requires `time`.
    expect(await t.req({ req: "env.modified" })).toEqual({ time: 0 });
  });

  it("returns nothing for an unknown name, and checks its arguments", async () => {
    const t = await bootTestModule();
    expect(await t.req({ req: "env.get", name: "nope" })).toEqual({});
    expect((await t.req({ req: "env.get", name: "a", names: ["b"] })).err).toMatch(
      /name and names cannot be used together \{incompatible\}/,
    );
    expect((await t.req({ req: "env.get", names: [] })).err).toMatch(/names must list at least one name/);
    expect((await t.req({ req: "env.get", names: ["a", 1] })).err).toMatch(/\{io\}/);
    expect((await t.req({ req: "env.get", time: "yesterday" })).err).toMatch(/\{io\}/);
    expect((await t.req({ req: "env.modified", time: true })).err).toMatch(/\{io\}/);
  });
});
