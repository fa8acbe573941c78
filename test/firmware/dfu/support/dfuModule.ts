import type { JsonObject } from "../../../../core/json.js";
import type { DfuOptions } from "../../../../firmware/dfu/DfuAgent.js";
import type { HubLink } from "../../../../firmware/radio/HubLink.js";
import type { VariantName } from "../../../../firmware/Variant.js";
import { FakeClock } from "../../../../runtime/FakeClock.js";
import { SimulatedModule } from "../../../../runtime/SimulatedModule.js";
import { expectShape } from "./dfuShapes.js";

export const TEST_PRODUCT = "product:com.example:dfu";

export interface DfuModuleOptions {
  /** The hub: a scripted one (SimHubLink over MockDfuHub) or the real hub's sync service. */
  readonly link: HubLink;
  readonly clock?: FakeClock;
  readonly variant?: VariantName;
  /** The power-loss flash (journal and images), so power can fail mid-download. */
  readonly powerLoss?: boolean;
  readonly dfu?: DfuOptions;
  readonly seed?: number;
  readonly product?: string;
}

/**
 * A module linked to a hub through any `HubLink`, for firmware updates: the same tests run against
 * the scripted hub (MockDfuHub) and, once the sync service is in the tree, against the real hub.
 */
export async function bootDfuModule(options: DfuModuleOptions) {
  const clock = options.clock ?? new FakeClock();
  const sim = await SimulatedModule.boot({
    clock,
    seed: options.seed ?? 1,
    timeKnown: true,
    ...(options.variant ? { variant: options.variant } : {}),
    ...(options.powerLoss ? { flash: { powerLoss: {} } } : {}),
    hub: { link: options.link, product: options.product ?? TEST_PRODUCT },
    ...(options.dfu ? { dfu: options.dfu } : {}),
  });
  const req = async (request: JsonObject): Promise<JsonObject> => {
    const reply = await sim.module.request(request);
    if (!reply) throw new Error("no reply (a cmd?)");
    return reply;
  };
  /** A dfu.status, dfu.get or card.dfu request: a successful reply is checked against its schema. */
  const dfu = async (request: JsonObject): Promise<JsonObject> => {
    const reply = await req(request);
    if (reply["err"] === undefined) expectShape(String(request["req"]), reply);
    return reply;
  };
  /** One explicit sync, run to its end (and the restart an installed module image asks for). */
  const sync = async (): Promise<JsonObject> => {
    await req({ req: "hub.sync" });
    await sim.module.sync.idle();
    await clock.runDue();
    await sim.module.sync.idle();
    return req({ req: "hub.sync.status" });
  };
  return {
    clock,
    sim,
    req,
    dfu,
    sync,
    get module() {
      return sim.module;
    },
  };
}
