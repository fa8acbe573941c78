import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonObject } from "../../../core/json.js";
import type { Notebox } from "../../../firmware/storage/Notebox.js";
import {
  addUsage,
  USAGE_DAY_PREFIX,
  USAGE_KEY,
  type Traffic,
  type UsageBucket,
} from "../../../firmware/sync/UsageCounters.js";
import "../../support/fastCheckSeed.js";
import { bootTestModule, type TestModule } from "../../support/moduleFixture.js";

interface Session {
  readonly at: number;
  readonly traffic: Traffic;
  readonly secure: boolean;
}

/** The writer of the former format: totals and all the hourly buckets in one `sync.usage` record. */
function formerRecord(sessions: readonly Session[]): JsonObject {
  let since: number | undefined;
  const total = { bytes_sent: 0, bytes_received: 0, notes_sent: 0, notes_received: 0 };
  const sessionsOf = { sessions_standard: 0, sessions_secure: 0 };
  let hours: number[][] = [];
  for (const { at, traffic, secure } of sessions) {
    since ??= at;
    const hour = Math.floor(at / 3600);
    hours = hours.filter((h) => h[0]! > hour - 720);
    let bucket = hours.find((h) => h[0] === hour);
    if (!bucket) hours.push((bucket = [hour, 0, 0, 0, 0, 0]));
    bucket[1]! += traffic.bytes_sent;
    bucket[2]! += traffic.bytes_received;
    bucket[3]! += traffic.notes_sent;
    bucket[4]! += traffic.notes_received;
    bucket[5]! += 1;
    for (const k of Object.keys(total) as (keyof Traffic)[]) total[k] += traffic[k];
    if (secure) sessionsOf.sessions_secure++;
    else sessionsOf.sessions_standard++;
  }
  return { since: since!, total: { ...total, ...sessionsOf }, hours };
}

const QUERIES: JsonObject[] = [
  { req: "card.usage.get" },
  ...["1hour", "1day", "30day"].flatMap((mode) =>
    [0, 1, 2, 5, 30].map((offset) => ({ req: "card.usage.get", mode, offset })),
  ),
  { req: "card.usage.test" },
  { req: "card.usage.test", days: 3 },
  { req: "card.usage.test", hours: 5 },
];

async function answers(t: TestModule): Promise<JsonObject[]> {
  const replies: JsonObject[] = [];
  for (const q of QUERIES) replies.push(await t.req(q));
  return replies;
}

async function countNew(box: Notebox, sessions: readonly Session[]): Promise<void> {
  for (const s of sessions) await box.transact(() => addUsage(box, s.at, s.traffic, s.secure));
}

async function writeFormer(box: Notebox, sessions: readonly Session[]): Promise<void> {
  await box.transact(() => {
    for (const key of box.configKeys(USAGE_DAY_PREFIX)) box.setConfig(key, undefined);
    box.setConfig(USAGE_KEY, formerRecord(sessions));
  });
}

/** Sessions from `gaps` (minutes), the last one at `end` (epoch seconds). */
function sessionsEndingAt(end: number, gaps: readonly [number, number, number, boolean][]): Session[] {
  let at = end;
  const out: Session[] = [];
  for (const [gap, sent, received, secure] of [...gaps].reverse()) {
    out.unshift({
      at,
      traffic: {
        bytes_sent: sent,
        bytes_received: received,
        notes_sent: sent % 7,
        notes_received: received % 3,
      },
      secure,
    });
    at -= gap * 60;
  }
  return out;
}

const GAPS = fc.array(
  fc.tuple(
    fc.oneof(fc.integer({ min: 0, max: 90 }), fc.integer({ min: 0, max: 5 * 24 * 60 })),
    fc.nat(5000),
    fc.nat(5000),
    fc.boolean(),
  ),
  { minLength: 1, maxLength: 60 },
);

describe("card.usage keeps its totals in one record and the hours in a record per day", () => {
  it("answers every mode and offset as the former single record did, over any sessions", async () => {
    const t = await bootTestModule({ timeKnown: true });
    const box = t.module.notebox;
    await fc.assert(
      fc.asyncProperty(GAPS, async (gaps) => {
        const sessions = sessionsEndingAt(t.module.noteTime() - 600, gaps);
        await writeFormer(box, []);
        await box.transact(() => box.setConfig(USAGE_KEY, undefined));
        await countNew(box, sessions);
        const now = await answers(t);
        await writeFormer(box, sessions);
        expect(now).toEqual(await answers(t));
      }),
      { numRuns: 40 },
    );
  });

  it("rewrites only the totals and one day of buckets a session, and keeps 30 days", async () => {
    const t = await bootTestModule({ timeKnown: true });
    const box = t.module.notebox;
    // The last session at noon: the day it adds to has a record already.
    const end = Math.floor(t.module.noteTime() / 86_400) * 86_400 - 12 * 3600;
    const sessions = sessionsEndingAt(
      end,
      Array.from({ length: 45 * 24 * 4 }, () => [15, 300, 120, true] as [number, number, number, boolean]),
    );
    await countNew(box, sessions.slice(0, -1));
    const written: string[] = [];
    const put = box.setConfig.bind(box);
    box.setConfig = (key, value) => {
      written.push(`${key}=${JSON.stringify(value)}`);
      put(key, value);
    };
    await countNew(box, sessions.slice(-1));
    expect(written.map((w) => w.slice(0, w.indexOf("=")))).toEqual([
      `${USAGE_DAY_PREFIX}${Math.floor(end / 86_400)}`,
      USAGE_KEY,
    ]);
    expect(written.join("").length).toBeLessThan(24 * 40 + 300);
    const days = box.configKeys(USAGE_DAY_PREFIX).map((k) => Number(k.slice(USAGE_DAY_PREFIX.length)));
    expect(Math.min(...days)).toBeGreaterThan(Math.floor(end / 3600 - 720) / 24 - 1);
    expect(days.length).toBeLessThanOrEqual(31);
    expect((await t.req({ req: "card.usage.get" })).bytes_sent).toBe(300 * sessions.length);
    const hourNow = Math.floor(t.module.noteTime() / 3600);
    const inMonth = sessions.filter((s) => Math.floor(s.at / 3600) > hourNow - 720).length;
    expect((await t.req({ req: "card.usage.get", mode: "30day" })).bytes_sent).toBe(300 * inMonth);
    expect((await t.req({ req: "card.usage.get", mode: "1day", offset: 2 })).notes_sent).toBe(
      (300 % 7) * 24 * 4,
    );
  });

  it("reads a flash holding the former record after a reboot, converts it at the next session and keeps counting", async () => {
    const t = await bootTestModule({ timeKnown: true });
    const end = t.module.noteTime() - 60;
    const gaps = Array.from({ length: 200 }, (_, i) => [(i * 37) % 400, i * 11, i * 5, i % 3 === 0] as const);
    const sessions = sessionsEndingAt(end, gaps as unknown as [number, number, number, boolean][]);
    await writeFormer(t.module.notebox, sessions.slice(0, -1));
    const booted = await t.reboot();
    const box = booted.module.notebox;
    expect(box.config<{ hours: UsageBucket[] }>(USAGE_KEY)?.hours.length).toBeGreaterThan(24);
    const before = await answers(booted);
    await writeFormer(box, sessions.slice(0, -1));
    expect(await answers(booted)).toEqual(before);

    await countNew(box, sessions.slice(-1));
    expect(box.config<JsonObject>(USAGE_KEY)).not.toHaveProperty("hours");
    expect(box.configKeys(USAGE_DAY_PREFIX).length).toBeGreaterThan(1);
    const after = await answers(booted);
    await writeFormer(box, sessions);
    expect(after).toEqual(await answers(booted));
    expect(after[0]).toMatchObject({ bytes_sent: sessions.reduce((n, s) => n + s.traffic.bytes_sent, 0) });
  });

  it("starts again from zero after card.restore delete, whichever format the flash held", async () => {
    for (const former of [true, false]) {
      const t = await bootTestModule({ timeKnown: true });
      const box = t.module.notebox;
      const sessions = sessionsEndingAt(t.module.noteTime() - 60, [
        [10, 100, 50, false],
        [10, 70, 20, true],
      ]);
      if (former) await writeFormer(box, sessions);
      else await countNew(box, sessions);
      expect((await t.req({ req: "card.usage.get" })).bytes_sent).toBe(170);
      await t.req({ req: "card.restore", delete: true });
      const booted = await t.reboot();
      const reset = booted.module.notebox;
      expect(reset.config(USAGE_KEY)).toBeUndefined();
      expect(reset.configKeys(USAGE_DAY_PREFIX)).toEqual([]);
      expect((await booted.req({ req: "card.usage.get", mode: "1day" })).bytes_sent ?? 0).toBe(0);
      await countNew(reset, sessions.slice(-1));
      expect(await booted.req({ req: "card.usage.get" })).toMatchObject({
        bytes_sent: 70,
        sessions_secure: 1,
        bytes_received: 20,
      });
    }
  });
});
