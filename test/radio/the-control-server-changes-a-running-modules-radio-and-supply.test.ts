import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SimPowerSource } from "../../firmware/PowerSource.js";
import { SimRadioConditions } from "../../firmware/radio/RadioConditions.js";
import { World } from "../../firmware/world/World.js";
import { FakeClock } from "../../runtime/FakeClock.js";
import { WorldControlServer } from "../../runtime/WorldControlServer.js";

describe("the world control server drives the radio and the supply", () => {
  let clock: FakeClock;
  let world: World;
  let radio: SimRadioConditions;
  let power: SimPowerSource;
  let server: WorldControlServer;
  const url = (path: string) => `http://127.0.0.1:${server.address.port}${path}`;
  const post = async (path: string, body: unknown) => {
    const response = await fetch(url(path), { method: "POST", body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  beforeEach(async () => {
    clock = new FakeClock();
    world = new World({ clock });
    radio = new SimRadioConditions(clock);
    power = new SimPowerSource();
    server = await WorldControlServer.listen(world, "127.0.0.1", 0, { radio, power });
  });
  afterEach(async () => {
    await server.close();
    radio.dispose();
    world.dispose();
  });

  it("reads the radio, sets a preset, an outage that ends on the module's clock, latency and failed connects", async () => {
    expect(await (await fetch(url("/radio"))).json()).toMatchObject({
      bars: 3,
      registered: true,
      failConnects: 0,
    });
    expect((await post("/radio", { op: "signal", args: ["poor", "nbiot"] })).body).toMatchObject({
      rat: "nbiot",
      bearer: "LTE NB-IoT",
      bars: 1,
    });
    expect((await post("/radio", { op: "outage", args: ["hub", 5000] })).body).toMatchObject({
      hubReachable: false,
    });
    await clock.advance(5000);
    expect(radio.state().hubReachable).toBe(true);
    expect((await post("/radio", { op: "latency", args: [750] })).body).toMatchObject({ latencyMs: 750 });
    expect((await post("/radio", { op: "failConnects", args: [3] })).body).toMatchObject({ failConnects: 3 });
    expect((await post("/radio", { op: "set", args: [{ rssi: -101 }] })).body).toMatchObject({ rssi: -101 });
  });

  it("answers a bad radio change with 400 and what it takes", async () => {
    expect(await post("/radio", { op: "signal", args: ["great"] })).toEqual({
      status: 400,
      body: { err: "signal takes a preset: one of good, fair, poor, none" },
    });
    expect((await post("/radio", { op: "teleport" })).body["err"]).toMatch(
      /^op must be one of signal, set, outage/,
    );
  });

  it("sets the supply's source and voltage as one change, and refuses bad values", async () => {
    expect(await (await fetch(url("/supply"))).json()).toEqual({ volts: 3.9, usb: false });
    let changes = 0;
    power.onChange(() => changes++);
    expect((await post("/supply", { source: "line", volts: 5.1 })).body).toEqual({ volts: 5.1, usb: true });
    expect(changes).toBe(1);
    expect((await post("/supply", { source: "battery", volts: 3.5 })).body).toEqual({
      volts: 3.5,
      usb: false,
    });
    expect(await post("/supply", { volts: -1 })).toEqual({
      status: 400,
      body: { err: "volts must be a number >= 0" },
    });
    expect((await post("/supply", { source: "solar" })).body).toEqual({
      err: "source must be usb, battery or line",
    });
  });

  it("without a radio or a supply the paths are not there", async () => {
    const bare = await WorldControlServer.listen(world, "127.0.0.1", 0);
    try {
      const response = await fetch(`http://127.0.0.1:${bare.address.port}/radio`);
      expect(response.status).toBe(404);
    } finally {
      await bare.close();
    }
  });
});
