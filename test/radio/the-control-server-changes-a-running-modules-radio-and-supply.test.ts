import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SimPowerSource } from "../../firmware/PowerSource.js";
import { SimRadioConditions } from "../../firmware/radio/RadioConditions.js";
import { World } from "../../firmware/world/World.js";
import { FakeClock } from "../../runtime/FakeClock.js";
import { WorldControlServer } from "../../runtime/WorldControlServer.js";
import { DischargePlayer } from "../../runtime/DischargeCurve.js";

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

  it("plays a discharge on the module's clock, replaces it, hands over to a voltage set by hand, and refuses bad ones", async () => {
    const player = new DischargePlayer(power, clock);
    const driven = await WorldControlServer.listen(world, "127.0.0.1", 0, { power, discharge: player });
    const at = (path: string) => `http://127.0.0.1:${driven.address.port}${path}`;
    const send = async (body: unknown) => {
      const response = await fetch(at("/supply"), { method: "POST", body: JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    try {
      expect(await (await fetch(at("/supply"))).json()).toEqual({ volts: 3.9, usb: false, discharge: null });
      expect((await send({ discharge: "linear:4.2-3.3/30d" })).body).toEqual({
        volts: 4.2,
        usb: false,
        discharge: {
          fromVolts: 4.2,
          toVolts: 3.3,
          durationMs: 30 * 86_400_000,
          elapsedMs: 0,
          finished: false,
        },
      });
      await clock.advance(15 * 86_400_000);
      expect(power.volts).toBeCloseTo(3.75, 3);
      // A CSV's text replaces the curve playing, from now.
      expect(
        (await send({ discharge: "time,volts\n0,3.7\n1h,3.6\n", source: "battery" })).body,
      ).toMatchObject({
        volts: 3.7,
        discharge: { fromVolts: 3.7, toVolts: 3.6, durationMs: 3_600_000, elapsedMs: 0 },
      });
      await clock.advance(2 * 3_600_000);
      expect(power.volts).toBe(3.6);
      expect((await (await fetch(at("/supply"))).json()) as Record<string, unknown>).toMatchObject({
        discharge: { elapsedMs: 3_600_000, finished: true },
      });
      await send({ discharge: "linear:4.0-3.0/1d" });
      // A voltage set by hand stops the curve: the next step does not overwrite it.
      expect((await send({ volts: 3.95 })).body).toEqual({ volts: 3.95, usb: false, discharge: null });
      await clock.advance(86_400_000);
      expect(power.volts).toBe(3.95);
      expect(await send({ discharge: "linear:4.2/30d" })).toEqual({
        status: 400,
        body: {
          err: 'discharge: "linear:4.2/30d" is not a linear model: write linear:FROM-TO/DURATION, e.g. linear:4.2-3.3/30d',
        },
      });
      expect((await send({ discharge: "0,4.1\n1h,lots\n" })).body["err"]).toMatch(
        /^discharge: line 2: "lots" is not a voltage/,
      );
      expect((await send({ discharge: 42 })).status).toBe(400);
      expect((await send({ discharge: "linear:4.2-3.3/30d", volts: 4 })).body).toEqual({
        err: "give volts or a discharge curve, not both",
      });
      expect(power.volts).toBe(3.95);
      expect((await send({ discharge: null })).body).toEqual({ volts: 3.95, usb: false, discharge: null });
    } finally {
      player.stop();
      await driven.close();
    }
    // Without a player the supply takes no curve.
    expect(await post("/supply", { discharge: "linear:4.2-3.3/30d" })).toEqual({
      status: 400,
      body: { err: "this module plays no discharge curves" },
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
