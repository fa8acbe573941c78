import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgHubStore } from "../../../hub/store/postgres/PgHubStore.js";
import { SharedHelloThrottle } from "../../../hub/sync/HelloThrottle.js";
import { createTestDatabase, POSTGRES_SKIP_MESSAGE, testPostgresUrl } from "../../support/postgres.js";
import { putDevice, seedProject } from "./contract/support/seed.js";

const admin = testPostgresUrl();

/** Resolves with the next payload `store` hears on the feed channel that `match` accepts. */
const heard = (store: PgHubStore, match: (payload: string) => boolean) =>
  new Promise<string>((resolve) => {
    const stop = store.cluster.subscribe("cardsim_feed", (payload) => {
      if (!match(payload)) return;
      stop();
      resolve(payload);
    });
  });

/**
 * Two stores over one database stand for two hub processes: what one keeps of the sync (sessions,
 * the challenges' key, the challenges spent) the other finds, what one publishes the other hears,
 * and each knows the other alive. A connection the server ends (pg_terminate_backend) costs
 * nothing acknowledged: a transaction cut off before its commit runs again, the loss is reported,
 * and the listening connection is made again.
 */
describe.skipIf(!admin)("hub processes over one PostgreSQL database", () => {
  let url: string;
  let one: PgHubStore;
  let two: PgHubStore;
  const told: string[] = [];

  beforeAll(async () => {
    url = await createTestDatabase(admin!);
    one = await PgHubStore.open(url, { onRetry: (message) => told.push(message) });
    two = await PgHubStore.open(url);
    await seedProject(one);
  });

  afterAll(async () => {
    await one?.close();
    await two?.close();
  });

  it("share one challenge key, spend a challenge once, and find each other's sessions", async () => {
    const key = await one.cluster.sharedSecret("k", () => new Uint8Array(32).fill(1));
    expect(await two.cluster.sharedSecret("k", () => new Uint8Array(32).fill(2))).toEqual(key);
    expect([...key]).toEqual(Array(32).fill(1));

    expect(await one.cluster.spendChallenge("c1", 10_000)).toBe(true);
    expect(await two.cluster.challengeSpent("c1")).toBe(true);
    expect(await two.cluster.spendChallenge("c1", 10_000)).toBe(false);
    await two.cluster.pruneChallenges(20_000);
    expect(await one.cluster.challengeSpent("c1")).toBe(false);

    await one.cluster.putSession({ token: "t1", deviceUid: "dev:1", lastSeen: 1000, data: "{}" });
    await one.cluster.putSession({ token: "t2", deviceUid: "dev:1", lastSeen: 5000, data: "{}" });
    await two.cluster.updateSession({ token: "t1", deviceUid: "dev:1", lastSeen: 2000, data: '{"n":1}' });
    // Read with the session's device (none stored here yet).
    expect(await one.cluster.getSession("t1")).toEqual({
      token: "t1",
      deviceUid: "dev:1",
      lastSeen: 2000,
      data: '{"n":1}',
      device: null,
    });
    expect((await two.cluster.sessionsOfDevice("dev:1")).map((s) => s.token).sort()).toEqual(["t1", "t2"]);
    // An idle session is taken out by one process only.
    const [a, b] = await Promise.all([
      one.cluster.takeIdleSessions(3000),
      two.cluster.takeIdleSessions(3000),
    ]);
    expect([...a, ...b].map((s) => s.token)).toEqual(["t1"]);
    await one.cluster.deleteSession("t2");
    expect(await two.cluster.countSessions()).toBe(0);
    // A session of a stored device comes with the device as it is now.
    await putDevice(one, 9);
    await two.cluster.putSession({ token: "t9", deviceUid: "dev:9", lastSeen: 1000, data: "{}" });
    expect((await one.cluster.getSession("t9"))?.device).toEqual(await two.devices.getDevice("dev:9"));
    await two.cluster.deleteSession("t9");
    // Updating a session that ended brings nothing back.
    await two.cluster.updateSession({ token: "t2", deviceUid: "dev:1", lastSeen: 9000, data: "{}" });
    expect(await one.cluster.getSession("t2")).toBeUndefined();
  });

  it("count hellos against one set of limits, whichever process answers them", async () => {
    const limits = { perDevice: 2, perSource: 3 };
    const [a, b] = [
      new SharedHelloThrottle(limits, one.cluster),
      new SharedHelloThrottle(limits, two.cluster),
    ];
    const t = 1_000_000;
    expect(await a.take("dev:1", "10.0.0.1", t)).toBeUndefined();
    expect(await b.take("dev:1", "10.0.0.1", t)).toBeUndefined();
    // The device's two a minute are used up on both; the address has one left, for another device.
    expect(await a.take("dev:1", "10.0.0.1", t)).toEqual({ wait: 30_000, limit: "for this device" });
    expect(await b.take("dev:1", "10.0.0.1", t)).toEqual({ wait: 30_000, limit: "for this device" });
    // Taken at once by both processes: the last hello of the address goes to one of them.
    const both = await Promise.all([a.take("dev:2", "10.0.0.1", t), b.take("dev:3", "10.0.0.1", t)]);
    expect(both.filter((r) => r === undefined)).toHaveLength(1);
    expect(both.find((r) => r !== undefined)).toEqual({ wait: 20_000, limit: "from this address" });
    // Half a minute later the device has one hello again.
    expect(await b.take("dev:1", "10.0.0.2", t + 30_000)).toBeUndefined();
  });

  it("keep the limiters' states in one place: each change seen by both, taken in turn, forgotten once expired", async () => {
    const keys = ["k\na", "k\nb"];
    expect(await one.cluster.readLimits(keys)).toEqual([undefined, undefined]);
    // A decision that changes nothing leaves no state behind.
    expect(await two.cluster.updateLimits(keys, (states) => ({ result: states }))).toEqual([
      undefined,
      undefined,
    ]);
    expect(await one.cluster.readLimits(keys)).toEqual([undefined, undefined]);
    // Counters taken from both processes at once: every increment lands (the rows are locked).
    const increment = (store: PgHubStore) =>
      store.cluster.updateLimits(keys, ([a]) => {
        const n = Number(a ?? 0) + 1;
        return { states: [{ data: String(n), expires: 5000 }, undefined], result: n };
      });
    const taken = await Promise.all([1, 2, 3, 4].map((i) => increment(i % 2 ? one : two)));
    expect(taken.sort()).toEqual([1, 2, 3, 4]);
    expect(await two.cluster.readLimits(keys)).toEqual(["4", undefined]);
    await two.cluster.updateLimits(["k\nb"], () => ({ states: [{ data: "x", expires: 9000 }], result: 0 }));
    await one.cluster.pruneLimits(6000);
    expect(await two.cluster.readLimits(keys)).toEqual([undefined, "x"]);
  });

  it("know each other alive, and hear what each other publishes", async () => {
    const live = await one.cluster.liveNodes();
    expect(live).toContain(one.cluster.node);
    expect(live).toContain(two.cluster.node);
    const hearing = heard(two, (p) => p === "from one");
    one.cluster.publish("cardsim_feed", "from one");
    expect(await hearing).toBe("from one");
    // Published in a transaction: heard once it commits, not at all when it rolls back.
    const committed = heard(two, (p) => p.startsWith("tx"));
    await one
      .transaction(async () => {
        one.cluster.publish("cardsim_feed", "tx rolled back");
        throw new Error("undo");
      })
      .catch(() => undefined);
    await one.transaction(async () => one.cluster.publish("cardsim_feed", "tx committed"));
    expect(await committed).toBe("tx committed");
  });

  it("loses no acknowledged write when the server ends its connections, and says so", async () => {
    await putDevice(one, 1);
    let release = (): void => undefined;
    const paused = new Promise<void>((resolve) => (release = resolve));
    let runs = 0;
    // A transaction under way when its connection is ended: run again as a whole.
    const write = one.transaction(async () => {
      runs++;
      await putDevice(one, 2);
      await paused;
      await putDevice(one, 3);
    });
    // Its work has begun (after BEGIN on its connection).
    while (runs === 0) await new Promise((resolve) => setImmediate(resolve));
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const ended = await db.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
    await db.end();
    expect(ended.rowCount).toBeGreaterThanOrEqual(2);
    release();
    await write;
    expect(runs).toBe(2);
    for (const n of [1, 2, 3]) expect((await two.devices.getDevice(`dev:${n}`))?.uid).toBe(`dev:${n}`);
    expect(
      told.some((m) =>
        /^hub store: lost the connection to PostgreSQL \(.+\); trying again in \d+ ms$/.test(m),
      ),
    ).toBe(true);
    // The connection that hears the others is made again: messages flow as before.
    const hearing = heard(one, (p) => p === "after");
    for (let i = 0; i < 100 && !told.some((m) => /hears the other hub processes/.test(m)); i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(told.some((m) => /hears the other hub processes/.test(m))).toBe(true);
    const deadline = Date.now() + 20_000;
    let got: string | undefined;
    void hearing.then((p) => (got = p));
    while (got === undefined && Date.now() < deadline) {
      two.cluster.publish("cardsim_feed", "after");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(got).toBe("after");
  });
});

if (!admin)
  describe("hub processes over one PostgreSQL database", () =>
    it.skip(POSTGRES_SKIP_MESSAGE, () => undefined));
