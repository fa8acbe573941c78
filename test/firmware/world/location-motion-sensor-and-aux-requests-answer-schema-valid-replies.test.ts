import { describe, expect, it } from "vitest";
import { World } from "../../../firmware/world/World.js";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { bootTestModule } from "../../support/moduleFixture.js";

/**
 * Replies of the requests built on the world model, checked against our own compact description
 * of each reply (member names, JSON types, the values an enum allows, and whether other members
 * are allowed), written from the public request schemas (github.com/blues/notecard-schema), over
 * requests of our own that exercise every state. (An optional check against a local checkout of
 * those schemas never ran in CI, which cannot reach it, and that repository carries no licence to
 * commit its files here: it was removed. The replies validated against its commit 43d7007 when it
 * was last run, on 2026-11-27.)
 */

type JsonType = "integer" | "number" | "string" | "boolean" | "array" | "object";
interface Shape {
  readonly fields: Readonly<Record<string, JsonType | readonly string[]>>;
  readonly required?: readonly string[];
  /** Members the schema does not list are refused (the schema forbids them). */
  readonly closed?: boolean;
}

const LOCATION_MODES = ["continuous", "periodic", "off", "fixed"];
const AUX_REPLY_MODES = [
  "busy-monitor",
  "dfu",
  "gpio",
  "led",
  "led-monitor",
  "motion",
  "neo",
  "neo-monitor",
  "off",
  "rgb",
  "rgb-monitor",
  "track",
  "track-led-monitor",
  "track-neo-monitor",
  "track-rgb-monitor",
];

const SHAPES: Record<string, Shape> = {
  // The reply schema's mode enum leaves out "fixed", which the module reports in fixed mode.
  "card.location": {
    fields: {
      count: "integer",
      dop: "number",
      lat: "number",
      lon: "number",
      max: "integer",
      mode: LOCATION_MODES,
      status: "string",
      time: "integer",
    },
    required: ["mode"],
    closed: true,
  },
  "card.location.mode": {
    fields: {
      journey: "boolean",
      lat: "number",
      lon: "number",
      max: "integer",
      minutes: "integer",
      mode: LOCATION_MODES,
      seconds: "integer",
      threshold: "integer",
      vseconds: "string",
    },
  },
  "card.location.track": {
    fields: {
      file: "string",
      heartbeat: "boolean",
      hours: "integer",
      journey: "boolean",
      minutes: "integer",
      seconds: "integer",
      start: "boolean",
      stop: "boolean",
    },
  },
  "card.triangulate": {
    fields: {
      length: "integer",
      mode: "string",
      motion: "integer",
      on: "boolean",
      time: "integer",
      usb: "boolean",
    },
    closed: true,
  },
  "card.motion": {
    fields: {
      alert: "boolean",
      count: "integer",
      mode: "string",
      motion: "integer",
      movements: "string",
      seconds: "integer",
      status: "string",
    },
  },
  "card.motion.mode": {
    fields: { motion: "integer", seconds: "integer", start: "boolean", stop: "boolean" },
    closed: true,
  },
  "card.motion.sync": { fields: {}, closed: true },
  "card.motion.track": { fields: {}, closed: true },
  "card.temp": {
    fields: {
      calibration: "number",
      humidity: "number",
      off: "boolean",
      pressure: "number",
      temperature: "number",
      usb: "boolean",
      value: "number",
      voltage: "number",
    },
    closed: true,
  },
  "card.illumination": { fields: { value: "number" } },
  "card.aux": {
    fields: { mode: AUX_REPLY_MODES, power: "boolean", seconds: "integer", state: "array", time: "integer" },
  },
  "card.aux.serial": { fields: { max: "integer", mode: "string", ms: "integer", rate: "integer" } },
  "card.led": { fields: {}, closed: true },
  "card.monitor": { fields: {} },
  "card.carrier": { fields: { charging: "boolean", mode: ["charging", "off"] }, required: ["mode"] },
};

function typeOf(value: unknown): JsonType | "null" {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value as JsonType;
}

/** What is wrong with a reply by its shape, or [] when nothing is. */
function shapeProblems(request: string, reply: Record<string, unknown>): string[] {
  const shape = SHAPES[request];
  if (!shape) return [`no shape for ${request}`];
  const problems: string[] = [];
  if (reply["err"] !== undefined) return [`error reply: ${String(reply["err"])}`];
  for (const name of shape.required ?? []) if (!(name in reply)) problems.push(`${name} is required`);
  for (const [name, value] of Object.entries(reply)) {
    const expected = shape.fields[name];
    if (expected === undefined) {
      if (shape.closed) problems.push(`${name} is not a member of the reply`);
      continue;
    }
    const actual = typeOf(value);
    if (Array.isArray(expected)) {
      if (!(expected as readonly string[]).includes(value as string))
        problems.push(`${name} ${String(value)} not in enum`);
    } else if (!(actual === expected || (expected === "number" && actual === "integer")))
      problems.push(`${name} is ${actual}, not ${expected}`);
  }
  if (request === "card.aux" && Array.isArray(reply["state"])) {
    for (const pin of reply["state"] as Record<string, unknown>[]) {
      for (const [k, v] of Object.entries(pin)) {
        if (k === "count") {
          if (!Array.isArray(v) || !v.every((c) => Number.isInteger(c)))
            problems.push("state count must be integers");
        } else if (!["high", "low", "input"].includes(k) || v !== true) problems.push(`state member ${k}`);
      }
    }
  }
  return problems;
}

async function sampleModule() {
  const clock = new FakeClock();
  const world = new World({ clock, position: { lat: 42.5776, lon: -70.87134 } });
  world.setLight(8806.4);
  const t = await bootTestModule({ clock, world, variant: "cell-wifi", timeKnown: true });
  return { clock, world, t };
}

describe("replies have the shapes of the public schemas", () => {
  it("in every state the requests reach", async () => {
    const { clock, world, t } = await sampleModule();
    const checked = new Set<string>();
    const check = async (req: Record<string, unknown>) => {
      const reply = await t.req(req);
      const name = String(req["req"]);
      checked.add(name);
      expect(shapeProblems(name, reply), `${JSON.stringify(req)} -> ${JSON.stringify(reply)}`).toEqual([]);
      return reply;
    };
    await check({ req: "card.location" });
    await check({ req: "card.location.mode" });
    await check({ req: "card.location.mode", mode: "continuous", seconds: 20, threshold: 2 });
    await check({ req: "card.location.track", start: true, heartbeat: true, hours: -45, file: "trips.qo" });
    await check({ req: "card.location.track", heartbeat: false });
    await check({ req: "card.location" });
    world.setMotion("moving");
    await clock.advance(120_000);
    await check({ req: "card.location" });
    await check({
      req: "card.location.mode",
      mode: "periodic",
      vseconds: "usb:30;normal:60;600",
      max: 150,
      minutes: 2,
    });
    await check({ req: "card.location" });
    await check({ req: "card.location.track" });
    await check({ req: "card.location.mode", mode: "fixed", lat: 51.5, lon: -0.12 });
    await check({ req: "card.location" });
    await check({ req: "card.location.mode", mode: "off", delete: true });
    await check({ req: "card.triangulate", mode: "wifi,cell", on: true, usb: true, set: true });
    await check({
      req: "card.triangulate",
      text: '+CWLAP:(3,"cafe",-60,"aa:bb:cc:dd:ee:ff",6)\n',
      time: 1_767_225_600,
    });
    await check({ req: "card.triangulate", mode: "-" });
    await check({ req: "card.motion" });
    await check({ req: "card.motion.mode", start: true, seconds: 10, sensitivity: 2, motion: 3 });
    world.shake(5);
    world.setOrientation("angled");
    world.freeFall();
    await check({ req: "card.motion", minutes: 3 });
    await check({ req: "card.motion.sync", start: true, minutes: 10, count: 6, threshold: 2 });
    await check({ req: "card.motion.track", start: true, now: true, file: "moves.qo" });
    await check({ req: "card.motion.mode", stop: true });
    await check({ req: "card.temp", minutes: 30 });
    await check({ req: "card.temp", status: "usb:15;high:30;normal:60;720", sync: true });
    world.setEnvironment({ temperature: 21.5, humidity: 40.5, pressure: 101_325 });
    await check({ req: "card.temp", stop: true });
    await check({ req: "card.illumination" });
    await check({ req: "card.aux" });
    await check({
      req: "card.aux",
      mode: "gpio",
      usage: ["input-pullup", "low", "high", "count"],
      seconds: 2,
      max: 5,
    });
    world.aux.drive(4, true);
    await check({ req: "card.aux", start: true });
    await check({ req: "card.aux", mode: "track-neo-monitor", count: 5, offset: 2, sensitivity: 50 });
    await check({ req: "card.aux", mode: "track-monitor" });
    await check({ req: "card.aux", mode: "monitor" });
    await check({ req: "card.aux", mode: "led" });
    await check({ req: "card.led", mode: "yellow", on: true });
    await check({ req: "card.aux", mode: "dfu", rate: 9600 });
    await check({ req: "card.aux.serial" });
    await check({ req: "card.aux.serial", mode: "notify,accel,env", duration: 500, max: 63, ms: 20 });
    await check({ req: "card.aux.serial", mode: "gps" });
    await check({ req: "card.monitor", mode: "red", count: 3, usb: true });
    await check({ req: "card.carrier" });
    world.setCharging(true);
    await check({ req: "card.carrier", mode: "charging" });
    expect([...checked].sort()).toEqual(Object.keys(SHAPES).sort());
  });
});
