import { afterEach, describe, expect, it } from "vitest";
import type { JsonObject } from "../../core/json.js";
import { effectivePeriods } from "../../firmware/config/HubConfig.js";
import { hubWait, registrationWait, DEFAULT_PENALTY } from "../../firmware/sync/PenaltyBox.js";
import { Scenario } from "../../harness/Scenario.js";

const START = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The world of the month, in ms since START. */
const REGISTRATION_OUTAGE = { from: 5 * DAY + 8 * HOUR, to: 5 * DAY + 18 * HOUR };
const HUB_OUTAGE = { from: 15 * DAY + 3 * HOUR + 30 * MINUTE, to: 15 * DAY + 6 * HOUR + 30 * MINUTE };
const COMMAND_AT = 12 * DAY + 10 * HOUR;
const USB = { from: 20 * DAY, to: 21 * DAY };
const OUTBOUND = { usb: 30, battery: 60, low: 180 };
const INBOUND = 720;

describe("thirty days of periodic sync on the fake clock", () => {
  let sc: Scenario | undefined;
  afterEach(async () => {
    await sc?.close();
    sc = undefined;
  });

  it("through two outages, a battery discharge and a day on USB, every session starts when the schedule and the penalty boxes say", async () => {
    sc = await Scenario.start({ seed: "thirty-days", hub: "in-process", timeKnown: true, clockStart: START });
    const s = sc;
    const req = async (request: JsonObject): Promise<JsonObject> => {
      const reply = await s.run(s.module.request(request));
      if (!reply || typeof reply["err"] === "string")
        throw new Error(`${String(request["req"])}: ${JSON.stringify(reply)}`);
      return reply;
    };
    const at = (ms: number) => s.advance(START + ms - s.clock.now());

    // A LiPo-powered tracker: hourly uploads on battery, every 30 minutes on USB, every three
    // hours once the battery is low; the hub's changes twice a day. A reading every 15 minutes.
    await req({ req: "card.voltage", mode: "lipo" });
    await req({
      req: "hub.set",
      mode: "periodic",
      outbound: OUTBOUND.battery,
      inbound: INBOUND,
      voutbound: `usb:${OUTBOUND.usb};high:${OUTBOUND.battery};normal:${OUTBOUND.battery};low:${OUTBOUND.low}`,
    });
    s.power.discharge("linear:4.2-3.3/30d");
    let readings = 0;
    const sense = () => {
      void s.module.request({ req: "note.add", file: "sensors.qo", body: { n: readings++ } });
      s.clock.setTimer(sense, 15 * MINUTE);
    };
    sense();
    // The outbound interval in force at each session (read when it ends, as the module sees it).
    const intervals = new Map<number, number>();
    s.module.sync.onSession((o) => intervals.set(o.started, effectivePeriods(s.module).outbound));

    await at(REGISTRATION_OUTAGE.from);
    s.radio.outage({ what: "registration", forMs: REGISTRATION_OUTAGE.to - REGISTRATION_OUTAGE.from });
    await at(COMMAND_AT);
    const hub = s.hub!;
    await hub.addQiNote(s.module.deviceUid, "commands.qi", { body: { valve: "open" } });
    await at(HUB_OUTAGE.from);
    s.radio.outage({ what: "hub", forMs: HUB_OUTAGE.to - HUB_OUTAGE.from });
    await at(USB.from);
    s.power.supply({ source: "usb" });
    await at(USB.to);
    s.power.supply({ source: "battery" });
    await at(30 * DAY);

    const sessions = s.timeline.sessions;
    const within = (t: number, w: { from: number; to: number }) => t - START >= w.from && t - START < w.to;

    // Walk the month session by session against the schedule: the outbound checks follow the
    // interval in force from the last check, the inbound checks every 12 hours from the last,
    // and after a failed connection the next attempt waits for its penalty box to open.
    let lastOut = START;
    let nextIn = START + INBOUND * MINUTE;
    let boxUntil = 0;
    const failures = { registration: 0, hub: 0 };
    const boxes: number[] = [];
    let interval = OUTBOUND.battery;
    for (const session of sessions) {
      const t = session.start;
      const inboundDue = nextIn <= t;
      // Where the interval changed since the last check (USB, the battery going low), the check
      // is due by either; otherwise by exactly the one in force.
      const now = intervals.get(t)!;
      const dueOut = [interval, now].map((i) => lastOut + i * MINUTE);
      if (inboundDue) expect(t).toBe(Math.max(boxUntil, nextIn));
      else expect(dueOut.map((d) => Math.max(boxUntil, d))).toContain(t);
      expect(session.trigger).toBe(inboundDue ? "inbound" : "outbound");
      if (inboundDue) nextIn = t + INBOUND * MINUTE;
      if (!inboundDue || dueOut.some((d) => Math.max(boxUntil, d) <= t)) lastOut = t;
      interval = now;

      if (within(t, REGISTRATION_OUTAGE)) {
        expect(session).toMatchObject({ outcome: "link", error: "no network {network}" });
        failures.registration++;
        boxUntil = t + Math.round(registrationWait(DEFAULT_PENALTY, failures.registration) * MINUTE);
        boxes.push(boxUntil - t);
      } else if (within(t, HUB_OUTAGE)) {
        expect(session.outcome).toBe("link");
        failures.hub++;
        const wait = hubWait(failures.hub) * MINUTE;
        boxUntil = wait > 0 ? t + wait : 0;
      } else {
        expect(session.outcome).toBe("ok");
        failures.registration = failures.hub = 0;
        boxUntil = 0;
      }
    }

    // The registration outage of ten hours: six failures, each box longer than the last
    // (15, 37.5, 70.3, 117.2, 183.1, 274.7 minutes), then the first attempt after it succeeded.
    expect(boxes.map((ms) => Math.round(ms / 6000) / 10)).toEqual([15, 37.5, 70.3, 117.2, 183.1, 274.7]);
    const outageSessions = sessions.filter((e) => within(e.start, REGISTRATION_OUTAGE));
    expect(outageSessions).toHaveLength(6);
    const back = sessions.find((e) => e.start - START >= REGISTRATION_OUTAGE.to)!;
    expect(back.start).toBe(
      outageSessions[5]!.start + Math.round(registrationWait(DEFAULT_PENALTY, 6) * MINUTE),
    );
    expect(back.notesUp).toBeGreaterThan(40); // the readings of the outage, all of them
    // The hub outage of three hours: the attempts of the hourly cadence failed, none boxed longer.
    expect(sessions.filter((e) => within(e.start, HUB_OUTAGE)).map((e) => e.outcome)).toEqual([
      "link",
      "link",
      "link",
    ]);

    // The command from the hub came down at the first inbound check after day 12, 10:00.
    const down = sessions.filter((e) => e.notesDown > 0);
    expect(down).toHaveLength(1);
    expect(down[0]!.trigger).toBe("inbound");
    expect(down[0]!.start - START).toBeGreaterThanOrEqual(COMMAND_AT);
    expect(down[0]!.start - START).toBeLessThan(COMMAND_AT + INBOUND * MINUTE);
    expect(await req({ req: "note.get", file: "commands.qi", delete: true })).toMatchObject({
      body: { valve: "open" },
    });

    // On USB the module sent every 30 minutes; once the battery was low (below 3.5 V, after day
    // 23.3 of the linear discharge) every three hours.
    const gaps = (from: number, to: number) =>
      sessions
        .filter((e) => e.trigger === "outbound" && e.start - START >= from && e.start - START < to)
        .map((e, i, all) => (i === 0 ? undefined : (e.start - all[i - 1]!.start) / MINUTE))
        .filter((g) => g !== undefined);
    expect(new Set(gaps(USB.from + HOUR, USB.to))).toEqual(new Set([30]));
    const lowFrom = (((4.2 - 3.5) / 0.9) * 30 + 1) * DAY;
    expect(Math.min(...gaps(lowFrom, 30 * DAY).map((g) => (g < 180 ? 180 : g)))).toBe(180);
    expect((await req({ req: "card.voltage" }))["mode"]).toBe("low");

    // Nothing was lost: every reading taken before the last session is on the hub, once.
    const last = sessions.at(-1)!;
    const { events, has_more } = await hub.getEvents({
      deviceUID: s.module.deviceUid,
      files: "sensors.qo",
      pageSize: 10_000,
    });
    expect(has_more).toBe(false);
    const ns = events.map((e) => Number((e["body"] as JsonObject)["n"]));
    expect(new Set(ns).size).toBe(ns.length);
    expect(ns.length).toBe(sessions.reduce((n, e) => n + e.notesUp, 0));
    expect(Math.max(...ns) + 1).toBe(ns.length);
    // What is still on the module is what was read after the last session.
    const left = s.module.notebox.file("sensors.qo")?.notes.size ?? 0;
    expect(ns.length + left).toBe(readings);
    expect(left).toBeLessThanOrEqual(OUTBOUND.low / 15);
    expect(left).toBeGreaterThan(0);
    expect(last.outcome).toBe("ok");

    // The month's sessions, as the harness can write them for a person to read.
    expect(s.timeline.table().split("\n").length).toBeGreaterThan(sessions.length);
    const energy = s.energy();
    expect(energy.sessions).toBe(sessions.length);
    expect(energy.poweredMs).toBe(30 * DAY);
  }, 120_000);
});
