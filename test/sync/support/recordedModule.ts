import { expect } from "vitest";
import type { JsonObject } from "../../../core/json.js";
import type { ProtocolReply } from "../../../protocol/messages.js";
import type { FakeClock } from "../../../runtime/FakeClock.js";
import type { InProcessHub } from "../../../runtime/InProcessHub.js";
import { SimulatedModule } from "../../../runtime/SimulatedModule.js";

/** One message of a session as the hub saw it and answered it. */
export interface Exchange {
  readonly request: JsonObject;
  readonly reply: JsonObject;
}

/** What a test may change on the way: the message the hub reads, the reply the module gets. */
export interface Alteration {
  request?(message: JsonObject): JsonObject;
  reply?(reply: JsonObject, message: JsonObject): JsonObject;
}

/** A module booted against `hub` in process, each exchange recorded (and altered as the test says). */
export interface RecordedModule {
  readonly sim: SimulatedModule;
  /** Runs one `hub.sync` to its end (`{sync-end}`) and returns its exchanges. */
  sync(): Promise<Exchange[]>;
  /** Runs one `hub.sync` however it ends and returns its exchanges. */
  run(): Promise<Exchange[]>;
}

export async function recordedModule(options: {
  hub: InProcessHub;
  clock: FakeClock;
  seed: string;
  alter?: Alteration;
}): Promise<RecordedModule> {
  const { hub, alter } = options;
  let seen: Exchange[] = [];
  const handle = async (request: unknown, transport: { secure: boolean }): Promise<ProtocolReply> => {
    const sent = request as JsonObject;
    const message = alter?.request ? alter.request(sent) : sent;
    const answered = (await hub.services.sync.handle(message, transport)) as JsonObject;
    const reply = alter?.reply ? alter.reply(answered, sent) : answered;
    seen.push({ request: sent, reply });
    return reply as ProtocolReply;
  };
  const sim = await SimulatedModule.boot({
    clock: options.clock,
    seed: options.seed,
    timeKnown: true,
    hub: { inProcess: { handle }, product: hub.productUid },
  });
  const run = async (): Promise<Exchange[]> => {
    seen = [];
    await sim.module.request({ req: "hub.sync" });
    await sim.module.sync.idle();
    return seen;
  };
  return {
    sim,
    run,
    async sync() {
      const exchanges = await run();
      const status = await sim.module.request({ req: "hub.sync.status" });
      expect(String(status?.["status"])).toContain("{sync-end}");
      return exchanges;
    },
  };
}
