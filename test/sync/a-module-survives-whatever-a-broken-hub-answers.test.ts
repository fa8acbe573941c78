import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonObject } from "../../core/json.js";
import type { Exchanged, HubLink } from "../../firmware/radio/HubLink.js";
import type { MemoryLog } from "../../firmware/ModuleLog.js";
import { SimHubLink } from "../../firmware/radio/SimHubLink.js";
import type { ProtocolReply, ProtocolRequest } from "../../protocol/messages.js";
import type { SimulatedModule } from "../../runtime/SimulatedModule.js";
import { SyncWorld } from "./support/syncWorld.js";

/** What happens to the reply to the chosen message of a sync. */
type Damage =
  | { kind: "replace"; value: unknown }
  | { kind: "set"; field: string; value: unknown }
  | { kind: "drop"; field: string }
  | { kind: "edit"; edit: (reply: JsonObject) => void };

/** Fields the protocol's replies carry (docs/sync-protocol.md), and one it never does. */
const FIELDS = [
  "v",
  "err",
  "time",
  "challenge",
  "known",
  "session",
  "token",
  "tracker",
  "reset",
  "env",
  "files",
  "signals",
  "deleted",
  "merged",
  "notes",
  "since",
  "until",
  "more",
  "changes",
  "zone",
  "stranger",
];

const damage: fc.Arbitrary<Damage> = fc.oneof(
  fc.record({
    kind: fc.constant("replace" as const),
    value: fc.jsonValue({ maxDepth: 3 }),
  }),
  fc.record({
    kind: fc.constant("set" as const),
    field: fc.constantFrom(...FIELDS),
    value: fc.jsonValue({ maxDepth: 3 }),
  }),
  fc.record({ kind: fc.constant("drop" as const), field: fc.constantFrom(...FIELDS) }),
);

/**
 * The module's link to the world's hub in process, damaging the reply to the `at`-th message
 * while armed. The hub has acted on the request; only what the module hears is wrong.
 */
class DamagingLink implements HubLink {
  readonly secure = true;
  readonly #inner: SimHubLink;
  /** The reply to damage: the `at`-th message of a sync, or the first message of a type. */
  #armed: { at: number | string; damage: Damage } | undefined;
  #seen = 0;
  damaged: string | undefined;

  constructor(world: SyncWorld) {
    this.#inner = new SimHubLink(
      (request, bytes) => world.services.sync.handle(request, { secure: true, bytes }),
      {
        clock: world.clock,
      },
    );
  }

  arm(at: number | string, d: Damage): void {
    this.#armed = { at, damage: d };
    this.#seen = 0;
    this.damaged = undefined;
  }

  disarm(): void {
    this.#armed = undefined;
  }

  async exchange(request: ProtocolRequest): Promise<Exchanged> {
    const exchanged = await this.#inner.exchange(request);
    const armed = this.#armed;
    if (!armed || this.damaged) return exchanged;
    if (typeof armed.at === "number" ? this.#seen++ !== armed.at : request.type !== armed.at)
      return exchanged;
    this.damaged = request.type;
    const reply = JSON.parse(JSON.stringify(exchanged.reply)) as JsonObject;
    const d = armed.damage;
    let damaged: unknown = reply;
    if (d.kind === "replace") damaged = d.value;
    else if (d.kind === "set") reply[d.field] = d.value;
    else if (d.kind === "edit") d.edit(reply);
    else delete reply[d.field];
    return { ...exchanged, reply: damaged as ProtocolReply };
  }
}

/** What the module logged as errors (an exception that escaped a sync is logged as one). */
function errorsLogged(sim: SimulatedModule): string[] {
  const log = sim.log as MemoryLog;
  return log.lines.filter((l) => l.level === "error").map((l) => `${l.message} ${JSON.stringify(l.fields)}`);
}

/** Sensor readings the module sends and the commands the hub has for it, both numbered. */
async function work(world: SyncWorld, sim: SimulatedModule, round: number): Promise<void> {
  for (let i = 0; i < 3; i++)
    await world.req(sim, { req: "note.add", file: "sensors.qo", body: { round, i } });
  await world.req(sim, { req: "note.update", file: "config.db", note: "mode", body: { round } });
  const device = await world.device(sim);
  await world.services.notes.add(device, "commands.qi", null, { body: { round }, payload: null });
}

/** The commands the host has read so far (each read once). */
async function commands(sim: SimulatedModule): Promise<number[]> {
  const got: number[] = [];
  for (;;) {
    const reply = await sim.module.request({ req: "note.get", file: "commands.qi", delete: true });
    if (reply?.["err"]) return got;
    got.push((reply?.["body"] as { round: number }).round);
  }
}

describe("a module whose hub answers nonsense", () => {
  it("keeps answering its host, and a clean sync after brings every note over once, in order", async () => {
    const world = await SyncWorld.start("in-process");
    try {
      const link = new DamagingLink(world);
      const sim = await world.module({ hub: { link, product: world.productUid } });
      await world.sync(sim);
      let round = 0;
      let damagedRounds = 0;
      const read: number[] = [];
      await fc.assert(
        fc.asyncProperty(fc.nat({ max: 7 }), damage, async (at, d) => {
          round++;
          await work(world, sim, round);
          link.arm(at, d);
          await world.req(sim, { req: "hub.sync", allow: true });
          await sim.module.sync.idle();
          // Whatever it heard, the module answers its host.
          expect(await world.req(sim, { req: "card.version" })).toHaveProperty("version");
          const status = await world.req(sim, { req: "hub.sync.status" });
          expect(typeof status["status"]).toBe("string");
          // A reply it could not read failed the sync in words, not with an exception of its own.
          const engine = sim.module.sync.status();
          if (engine.alert) expect(engine.status).toMatch(/\{sync-error\}/);
          expect(engine.error ?? "", `after ${link.damaged} reply damaged: ${JSON.stringify(d)}`).not.toMatch(
            /^sync failed: /,
          );
          expect(errorsLogged(sim)).toEqual([]);
          if (link.damaged) damagedRounds++;
          link.disarm();
          // A clean sync (any penalty box lifted) brings everything over.
          let clean = await world.sync(sim, { allow: true });
          if (!String(clean["status"]).includes("{sync-end}")) clean = await world.sync(sim, { allow: true });
          expect(
            clean["status"],
            `after ${link.damaged ?? "no"} reply damaged: ${JSON.stringify(d)}`,
          ).toMatch(/\{sync-end\}/);
          read.push(...(await commands(sim)));
          expect(sim.module.notebox.file("sensors.qo")?.notes.size ?? 0).toBe(0);
        }),
        { numRuns: 100, seed: 20261127 },
      );
      // Every reading reached the hub exactly once; every command reached the host at most once.
      const sensors = (await world.events(sim))
        .filter((e) => e.file === "sensors.qo")
        .map((e) => {
          const b = e.data["body"] as { round: number; i: number };
          return `${b.round}/${b.i}`;
        });
      const expected = Array.from({ length: round }, (_, r) => [0, 1, 2].map((i) => `${r + 1}/${i}`)).flat();
      expect(sensors.sort()).toEqual(expected.sort());
      // Every command reached the host once, in order: a damaged reply never made the module take
      // (and acknowledge) something other than what the hub sent.
      expect(read).toEqual(Array.from({ length: round }, (_, r) => r + 1));
      const device = await world.device(sim);
      expect(await world.services.store.notefiles.getNote(device.uid, "config.db", "mode")).toMatchObject({
        body: { round },
      });
      // Most rounds did damage a reply (a sync has fewer messages than the highest index drawn: five,
      // since the open carries the first push).
      expect(damagedRounds).toBeGreaterThan(round / 2);
    } finally {
      await world.close();
    }
  });
});

/** Replies damaged in one field each, and what the module says of them. */
const UNREADABLE: { reply: string; edit: (reply: JsonObject) => void; says: string }[] = [
  {
    reply: "pull",
    edit: (r) => ((r["notes"] as JsonObject[])[0]!["id"] = 7),
    says: "the hub's pull reply cannot be read: notes[0].id must be a string {sync-error}",
  },
  {
    reply: "pull",
    edit: (r) => (r["file"] = "other.qi"),
    says: "the hub's pull reply cannot be read: file must be commands.qi, the notefile asked for {sync-error}",
  },
  {
    reply: "open",
    edit: (r) => ((r["env"] as JsonObject)["device"] = { mode: 7 }),
    says: "the hub's open reply cannot be read: env.device.mode must be a string {sync-error}",
  },
  {
    reply: "open",
    edit: (r) => delete r["token"],
    says: "the hub's open reply cannot be read: token must be a string {sync-error}",
  },
  {
    reply: "push",
    edit: (r) => (r["merged"] = -1),
    says: "the hub's push reply cannot be read: merged must be an integer from 0 up {sync-error}",
  },
  {
    reply: "hello",
    edit: (r) => (r["v"] = 2),
    says: "the hub's hello reply cannot be read: v must be 1, the protocol version the module speaks {sync-error}",
  },
];

describe("a hub reply the module cannot read", () => {
  it.each(UNREADABLE)(
    "($reply: $says) fails the sync as a {sync-error} naming the field, changes nothing, and the next sync is clean",
    async ({ reply, edit, says }) => {
      const world = await SyncWorld.start("in-process");
      try {
        const link = new DamagingLink(world);
        const sim = await world.module({ hub: { link, product: world.productUid } });
        await world.sync(sim);
        await work(world, sim, 1);
        // A module holding a session ticket opens without hello; a restarted one (its ticket was
        // in RAM) says hello again.
        if (reply === "hello") await sim.powerCycle();
        const before = JSON.stringify(sim.module.notebox.file("config.db")?.notes.get("mode"));
        link.arm(reply, { kind: "edit", edit });
        const failed = await world.sync(sim, { allow: true });
        expect(link.damaged).toBe(reply);
        // hub.sync.status says why, in the module's words; nothing was thrown or logged as a crash.
        expect(failed["status"]).toBe(says);
        expect(failed["alert"]).toBe(true);
        expect(sim.module.sync.status().error).toBe(says);
        expect(errorsLogged(sim)).toEqual([]);
        // The damaged reply changed nothing on the module: no command arrived, and the readings
        // go only once the hub acknowledged them in a reply the module read.
        expect(await commands(sim)).toEqual([]);
        // (A damaged push reply is config.db's: the readings rode on the open, whose reply it read.)
        expect(sim.module.notebox.file("sensors.qo")?.notes.size ?? 0).toBe(
          reply === "pull" || reply === "push" ? 0 : 3,
        );
        expect(JSON.stringify(sim.module.notebox.file("config.db")?.notes.get("mode"))).toBe(before);
        // The module keeps answering its host and syncs cleanly once the hub answers well.
        expect(await world.req(sim, { req: "card.version" })).toHaveProperty("version");
        link.disarm();
        const clean = await world.sync(sim, { allow: true });
        expect(clean["status"]).toMatch(/\{sync-end\}/);
        expect(clean["alert"]).toBeFalsy();
        expect(await commands(sim)).toEqual([1]);
        expect(sim.module.notebox.file("sensors.qo")?.notes.size ?? 0).toBe(0);
        const sensors = (await world.events(sim)).filter((e) => e.file === "sensors.qo");
        expect(sensors.map((e) => (e.data["body"] as { i: number }).i).sort()).toEqual([0, 1, 2]);
      } finally {
        await world.close();
      }
    },
  );
});
