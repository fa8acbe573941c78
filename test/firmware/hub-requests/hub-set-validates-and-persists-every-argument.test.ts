import { describe, expect, it } from "vitest";
import { HUB_CONFIG_KEY } from "../../../firmware/config/HubConfig.js";
import { bootTestModule } from "../../support/moduleFixture.js";

describe("hub.set and hub.get", () => {
  it("start from the factory defaults: periodic mode, default host, nothing else", async () => {
    const t = await bootTestModule();
    expect(await t.req({ req: "hub.get" })).toEqual({
      device: t.module.deviceUid,
      mode: "periodic",
      host: "a.notefile.net",
    });
  });

  it("persist product, serial number, host, periods and sync across a reboot", async () => {
    const t = await bootTestModule();
    const set = {
      req: "hub.set",
      product: "com.your-company.your-name:your_product",
      sn: "my-device",
      host: "hub.example.test",
      mode: "continuous",
      outbound: 30,
      inbound: 60,
      duration: 240,
      sync: true,
    };
    expect(await t.req(set)).toEqual({});
    const again = await t.reboot();
    expect(await again.req({ req: "hub.get" })).toEqual({
      device: t.module.deviceUid,
      product: "com.your-company.your-name:your_product",
      mode: "continuous",
      outbound: 30,
      inbound: 60,
      host: "hub.example.test",
      sn: "my-device",
      sync: true,
    });
  });

  it('reset with "-" (strings) and -1 (numbers)', async () => {
    const t = await bootTestModule();
    await t.req({
      req: "hub.set",
      product: "p:x",
      sn: "s",
      host: "h.test",
      outbound: 5,
      inbound: 7,
      duration: 20,
      seconds: 60,
    });
    await t.req({
      req: "hub.set",
      product: "-",
      sn: "",
      host: "-",
      outbound: -1,
      inbound: -1,
      duration: -1,
      seconds: -1,
    });
    expect(await t.req({ req: "hub.get" })).toEqual({
      device: t.module.deviceUid,
      mode: "periodic",
      host: "a.notefile.net",
    });
    expect(t.module.notebox.config(HUB_CONFIG_KEY)).toBeUndefined();
  });

  it("treat 0 minutes as never (left out of hub.get)", async () => {
    const t = await bootTestModule();
    await t.req({ req: "hub.set", outbound: 0, inbound: 0 });
    const reply = await t.req({ req: "hub.get" });
    expect(reply.outbound).toBeUndefined();
    expect(reply.inbound).toBeUndefined();
  });

  it.each([
    [{ outbound: -2 }, /outbound must be a number of minutes, or -1 to reset \(got -2\)/],
    [{ inbound: -5 }, /inbound must be a number of minutes/],
    [{ duration: 14 }, /duration must be at least 15 minutes, or -1 to reset \(got 14\)/],
    [{ duration: 0 }, /duration must be at least 15/],
    [{ seconds: 0 }, /seconds must be a number of seconds/],
    [
      { mode: "sometimes" },
      /mode "sometimes" is not one of periodic, continuous, minimum, off, dfu, dfu-completed, -/,
    ],
    [{ host: "" }, /host must be a host name/],
    [{ host: "a b" }, /host must be a host name/],
    [{ on: true, off: true }, /on and off cannot be used together \{incompatible\}/],
    [{ umin: true, uoff: true }, /umin and uoff cannot be used together \{incompatible\}/],
    [{ version: { ver_major: "1" } }, /version\.ver_major must be an integer/],
    [{ version: { org: 5 } }, /version\.org must be a string/],
    [
      { voutbound: "high:60;" },
      /voutbound "high:60;" is not a valid voltage-variable string: it has an empty state:value pair/,
    ],
    [{ vinbound: "high:1.5" }, /vinbound .* "1\.5" for high is not a whole number/],
  ])("reject %j without changing anything", async (args, message) => {
    const t = await bootTestModule();
    await t.req({ req: "hub.set", product: "com.example:kept", outbound: 45 });
    const reply = await t.req({ req: "hub.set", product: "com.example:lost", ...args });
    expect(reply.err).toMatch(message);
    expect(reply.err).not.toMatch(/\{io\}/);
    expect(await t.req({ req: "hub.get" })).toMatchObject({ product: "com.example:kept", outbound: 45 });
  });

  it.each([
    { outbound: "60" },
    { mode: 1 },
    { sync: "yes" },
    { version: 3 },
    { body: "agent" },
    { product: ["x"] },
  ])("answer a field of the wrong JSON type (%j) with an {io} error", async (args) => {
    const t = await bootTestModule();
    expect((await t.req({ req: "hub.set", ...args })).err).toMatch(/^cannot interpret JSON: .* \{io\}$/);
  });

  it("accept and keep the host firmware version as a string or an object", async () => {
    const t = await bootTestModule();
    await t.req({ req: "hub.set", version: "1.2.3" });
    expect(t.module.notebox.config<{ version: unknown }>(HUB_CONFIG_KEY)?.version).toBe("1.2.3");
    const version = {
      org: "Acme",
      product: "Widget",
      version: "1.2.3",
      ver_major: 1,
      ver_minor: 2,
      ver_patch: 3,
      ver_build: 4,
      built: "today",
      builder: "ci",
      description: "d",
    };
    await t.req({ req: "hub.set", version });
    expect(t.module.notebox.config<{ version: unknown }>(HUB_CONFIG_KEY)?.version).toEqual(version);
  });

  it("accept the user-agent body that host libraries add and keep it for the sync engine", async () => {
    const t = await bootTestModule();
    const body = { agent: "note-c", compiler: "gcc 12", req_interface: "serial", cpu_name: "esp32" };
    expect(await t.req({ req: "hub.set", product: "com.example:ua", body })).toEqual({});
    expect(t.module.notebox.config<{ agent: unknown }>(HUB_CONFIG_KEY)?.agent).toEqual(body);
    expect(await t.req({ req: "hub.get" })).not.toHaveProperty("body");
  });

  it("check the temporary continuous arguments on, off and seconds (used by web requests)", async () => {
    const t = await bootTestModule();
    expect(await t.req({ req: "hub.set", on: true, seconds: 120 })).toEqual({});
    expect(t.module.notebox.config<{ seconds: number }>(HUB_CONFIG_KEY)?.seconds).toBe(120);
    expect(await t.req({ req: "hub.set", off: true })).toEqual({});
    expect((await t.req({ req: "hub.get" })).mode).toBe("periodic");
  });

  it("keep voltage-variable periods as given and clear them with -", async () => {
    const t = await bootTestModule();
    const voutbound = "usb:30;high:60;normal:90;low:120;dead:0";
    const vinbound = "usb:60;high:120;normal:240;low:480;dead:0";
    await t.req({ req: "hub.set", mode: "periodic", voutbound, vinbound });
    expect(await t.req({ req: "hub.get" })).toMatchObject({ voutbound, vinbound });
    await t.req({ req: "hub.set", voutbound: "-", vinbound: "" });
    const reply = await t.req({ req: "hub.get" });
    expect(reply.voutbound).toBeUndefined();
    expect(reply.vinbound).toBeUndefined();
  });

  it("toggle align", async () => {
    const t = await bootTestModule();
    await t.req({ req: "hub.set", align: true });
    expect(t.module.notebox.config<{ align: boolean }>(HUB_CONFIG_KEY)?.align).toBe(true);
    await t.req({ req: "hub.set", align: false });
    expect(t.module.notebox.config(HUB_CONFIG_KEY)).toBeUndefined();
  });
});
