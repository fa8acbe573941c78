import { describe, expect, it } from "vitest";
import { bootTestModule } from "../../support/moduleFixture.js";

const mode = async (t: Awaited<ReturnType<typeof bootTestModule>>) => (await t.req({ req: "hub.get" })).mode;

describe("the sync mode state machine", () => {
  it.each(["periodic", "continuous", "minimum", "off", "dfu"])("goes to %s from any mode", async (next) => {
    for (const from of ["periodic", "continuous", "minimum", "off"]) {
      const t = await bootTestModule();
      await t.req({ req: "hub.set", mode: from });
      await t.req({ req: "hub.set", mode: next });
      expect(await mode(t)).toBe(next);
    }
  });

  it('resets to periodic with "-"', async () => {
    const t = await bootTestModule();
    await t.req({ req: "hub.set", mode: "off" });
    await t.req({ req: "hub.set", mode: "-" });
    expect(await mode(t)).toBe("periodic");
  });

  it("returns from dfu to the mode before it with dfu-completed, also after a reboot", async () => {
    const t = await bootTestModule();
    await t.req({ req: "hub.set", mode: "continuous" });
    await t.req({ req: "hub.set", mode: "dfu" });
    await t.req({ req: "hub.set", mode: "dfu" }); // entering again does not forget where it came from
    const again = await t.reboot();
    expect(await mode(again)).toBe("dfu");
    await again.req({ req: "hub.set", mode: "dfu-completed" });
    expect(await mode(again)).toBe("continuous");
  });

  it("returns from dfu to periodic when it entered dfu from the default", async () => {
    const t = await bootTestModule();
    await t.req({ req: "hub.set", mode: "dfu" });
    await t.req({ req: "hub.set", mode: "dfu-completed" });
    expect(await mode(t)).toBe("periodic");
  });

  it("ignores dfu-completed outside dfu", async () => {
    const t = await bootTestModule();
    await t.req({ req: "hub.set", mode: "minimum" });
    expect(await t.req({ req: "hub.set", mode: "dfu-completed" })).toEqual({});
    expect(await mode(t)).toBe("minimum");
  });

  it.each([
    ["umin", "minimum"],
    ["uoff", "off"],
    ["uperiodic", "periodic"],
  ])(
    "with %s is continuous on USB power and %s on battery, following the power port",
    async (flag, fallback) => {
      const t = await bootTestModule();
      await t.req({ req: "hub.set", mode: "periodic", [flag]: true });
      expect(await mode(t)).toBe(fallback);
      t.power.onUsb = true;
      expect(await mode(t)).toBe("continuous");
      t.power.onUsb = false;
      expect(await mode(t)).toBe(fallback);
      // Turning the flag off ends the policy.
      await t.req({ req: "hub.set", [flag]: false });
      t.power.onUsb = true;
      expect(await mode(t)).toBe("periodic");
    },
  );

  it("ends a USB policy when a mode is set explicitly, but not for dfu", async () => {
    const t = await bootTestModule();
    await t.req({ req: "hub.set", umin: true });
    t.power.onUsb = true;
    await t.req({ req: "hub.set", mode: "dfu" });
    expect(await mode(t)).toBe("dfu");
    await t.req({ req: "hub.set", mode: "dfu-completed" });
    expect(await mode(t)).toBe("continuous");
    await t.req({ req: "hub.set", mode: "off" });
    expect(await mode(t)).toBe("off");
  });

  it("has no sync periods in minimum, off and dfu", async () => {
    const t = await bootTestModule();
    await t.req({ req: "hub.set", outbound: 10, inbound: 20 });
    for (const m of ["minimum", "off", "dfu"]) {
      await t.req({ req: "hub.set", mode: m });
      const status = await t.req({ req: "card.status" });
      expect(status.outbound, m).toBeUndefined();
    }
    await t.req({ req: "hub.set", mode: "dfu-completed" }); // back to off
    expect((await t.req({ req: "card.status" })).outbound).toBeUndefined();
    await t.req({ req: "hub.set", mode: "continuous" });
    expect((await t.req({ req: "card.status" })).outbound).toBe(10);
  });
});
