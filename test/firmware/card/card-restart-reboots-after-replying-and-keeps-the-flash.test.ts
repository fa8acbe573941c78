import { describe, expect, it } from "vitest";
import { bootTestModule } from "../../support/moduleFixture.js";

describe("card.restart", () => {
  it("replies {} first, then boots again on the same flash", async () => {
    const t = await bootTestModule();
    await t.req({ req: "hub.set", product: "com.example:kept" });
    await t.req({ req: "card.time", time: 1_780_000_000 });
    await t.clock.advance(5_000);
    expect(await t.req({ req: "card.restart" })).toEqual({});
    expect(t.module.bootedAt).toBe(t.clock.now());
    expect((await t.req({ req: "hub.get" })).product).toBe("com.example:kept");
    // RAM is gone: the sideloaded time must be learned again.
    expect(await t.req({ req: "card.time" })).toEqual({ zone: "UTC,Unknown" });
    expect(t.log.lines.some((l) => l.message === "module restarting")).toBe(true);
  });

  it("restarts when sent as a cmd, without a reply", async () => {
    const t = await bootTestModule();
    await t.clock.advance(1_000);
    expect(await t.module.request({ cmd: "card.restart" })).toBeUndefined();
    expect(t.module.bootedAt).toBe(t.clock.now());
  });

  it("starts a new supply history, as the uptime in card.voltage shows", async () => {
    const t = await bootTestModule();
    await t.clock.advance(10 * 60_000);
    expect((await t.req({ req: "card.voltage" })).minutes).toBe(10);
    await t.req({ req: "card.restart" });
    expect((await t.req({ req: "card.voltage" })).minutes).toBeUndefined();
  });
});
