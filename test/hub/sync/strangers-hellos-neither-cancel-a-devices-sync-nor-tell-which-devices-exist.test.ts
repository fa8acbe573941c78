import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALL_VIAS, SyncFixture } from "./support/syncFixture.js";

const code = (reply: { err?: string }): string | undefined => /^\{([a-z-]+)\}/.exec(reply.err ?? "")?.[1];

/** Anyone may say hello for any DeviceUID: what that must not do to the device, or tell anyone. */
describe.each(ALL_VIAS)("unauthenticated hellos (%s)", (via) => {
  let hub: SyncFixture;
  beforeAll(async () => {
    // Here the stranger says hello from the device's own address (loopback): the limits, tested
    // below, would refuse it after a while; what is tested here is what an answered hello does.
    hub = await SyncFixture.start(via, { helloLimits: false });
  });
  afterAll(async () => hub.close());

  it("do not make the device's own open fail, however many come between its hello and its open", async () => {
    const module = await hub.module();
    expect((await module.open()).err).toBeUndefined();
    const stranger = await hub.module({ device: module.device, seed: 99 });
    for (let round = 0; round < 5; round++) {
      const hello = await module.hello();
      for (let i = 0; i < 50; i++) expect((await stranger.hello()).err).toBeUndefined();
      const open = await module.open({ challenge: hello.challenge as string });
      expect(open.err, `round ${round}`).toBeUndefined();
      expect((await module.close()).err).toBeUndefined();
    }
  });

  it("keep every challenge single-use and bound to its device and product", async () => {
    const module = await hub.module();
    const first = await module.hello();
    const second = await module.hello();
    // Either outstanding challenge opens, once.
    expect(
      (await module.open({ challenge: first.challenge as string, sendKey: module.publicKeyPem })).err,
    ).toBeUndefined();
    expect(code(await module.open({ challenge: first.challenge as string }))).toBe("auth");
    expect((await module.open({ challenge: second.challenge as string })).err).toBeUndefined();
    expect(code(await module.open({ challenge: second.challenge as string }))).toBe("auth");
    // A challenge the hub did not make, or altered, opens nothing.
    const made = (await module.hello()).challenge as string;
    const altered = `${made[0] === "A" ? "B" : "A"}${made.slice(1)}`;
    expect(code(await module.open({ challenge: altered }))).toBe("auth");
    expect(code(await module.open({ challenge: "c2VsZi1tYWRl" }))).toBe("auth");
    // Another device's challenge is refused to this one, even signed with the right key.
    const other = await hub.module();
    const theirs = (await other.hello()).challenge as string;
    expect(code(await module.open({ challenge: theirs }))).toBe("auth");
    expect((await module.open({ challenge: made })).err).toBeUndefined();
  });

  it("answer the same for a device the hub holds and one it never heard of", async () => {
    const known = await hub.module();
    expect((await known.open()).err).toBeUndefined();
    const unknown = await hub.module();
    const a = await known.hello();
    const b = await unknown.hello();
    expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
    expect(a).not.toHaveProperty("known");
    expect(b).not.toHaveProperty("known");
    expect(String(a.challenge).length).toBe(String(b.challenge).length);
    expect(a.time).toBe(b.time);
  });
});

describe("the hello limits (over the network)", () => {
  let hub: SyncFixture;
  beforeAll(async () => {
    hub = await SyncFixture.start("http", { helloLimits: { perDevice: 10, perSource: 30 } });
  });
  afterAll(async () => hub.close());

  it("refuse a flood for one device, say when to come back, and refill on the hub clock", async () => {
    const module = await hub.module();
    const stranger = await hub.module({ device: module.device, seed: 7 });
    const replies = [];
    for (let i = 0; i < 25; i++) replies.push(await stranger.hello());
    expect(replies.filter((r) => !r.err)).toHaveLength(10);
    const refused = replies.filter((r) => r.err);
    expect(refused).toHaveLength(15);
    for (const r of refused)
      expect(r.err).toBe("{rate-limited} too many hellos for this device: say hello again in 6 s");
    // A minute's worth refills in a minute; a refused hello used up nothing.
    await hub.clock.advance(6_000);
    expect((await module.open()).err).toBeUndefined();
    expect(code(await module.hello())).toBe("rate-limited");
    await hub.clock.advance(60_000);
    for (let i = 0; i < 10; i++) expect((await module.hello()).err).toBeUndefined();
  });

  it("refuse a flood from one address across devices", async () => {
    await hub.clock.advance(60_000);
    const replies = [];
    for (let i = 0; i < 40; i++) replies.push(await (await hub.module()).hello());
    expect(replies.filter((r) => !r.err)).toHaveLength(30);
    expect(replies.slice(30).every((r) => code(r) === "rate-limited")).toBe(true);
    expect(replies[30]!.err).toContain("from this address");
  });
});

describe("the hello limits (in process)", () => {
  let hub: SyncFixture;
  beforeAll(async () => {
    hub = await SyncFixture.start("in process", { helloLimits: { perDevice: 1, perSource: 1 } });
  });
  afterAll(async () => hub.close());

  it("do not apply to the hub's own process (fleets, tests, cardsim up's module)", async () => {
    const module = await hub.module();
    for (let i = 0; i < 20; i++) expect((await module.hello()).err).toBeUndefined();
  });
});
