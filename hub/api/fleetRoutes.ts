import * as errors from "../errors.js";
import type { Checked } from "./bodySchema.js";
import { newFleet, type FleetRecord } from "../store/records.js";
import { StoreError } from "../store/StoreError.js";
import type { HubRouter } from "./HubRouter.js";
import { CREATE_FLEET, UPDATE_FLEET } from "./requestBodies.js";
import { resolveDevice, resolveFleet } from "./resolve.js";
import { fleetView } from "./views.js";

type FleetSettings = Partial<Omit<FleetRecord, "uid" | "projectUid" | "created">>;

/** The settable fields of a fleet body (create and update share them), checked by its schema. */
function fleetSettings(body: Checked<typeof CREATE_FLEET>): FleetSettings {
  const out: FleetSettings = {};
  const label = body.label;
  if (label !== undefined) {
    if (label.trim() === "") throw errors.fieldInvalid("label", "may not be empty");
    out.label = label;
  }
  // A smart rule is any text: one that does not parse leaves membership as it is, as the
  // definition says of a rule that errs (SmartFleets applies the rules to events).
  const rule = body.smart_rule;
  if (rule !== undefined) out.smartRule = rule === "" ? null : rule;
  if (body.smart_rule_enabled !== undefined) out.smartRuleEnabled = body.smart_rule_enabled;
  if (body.watchdog_mins !== undefined) out.watchdogMins = body.watchdog_mins;
  if (body.connectivity_assurance) out.connectivityAssurance = body.connectivity_assurance.enabled ?? null;
  return out;
}

/** Fleets of a project: create, list, get, update (with membership), delete. */
export function registerFleetRoutes(router: HubRouter): void {
  const { store, ids, watchdogs } = router.services;
  const P = "/v1/projects/:projectUID";

  router.project("GET", `${P}/fleets`, "viewer", async (ctx) => {
    const fleets = await store.projects.listFleets(ctx.project.uid);
    const env = await store.env.forProject(ctx.project.uid);
    return { fleets: fleets.map((f) => fleetView(f, env.fleets.get(f.uid) ?? [])) };
  });

  router.project(
    "POST",
    `${P}/fleets`,
    "developer",
    async (ctx) => {
      const settings = fleetSettings(ctx.body(CREATE_FLEET));
      if (settings.label === undefined) throw errors.fieldRequired("label");
      const fleet = newFleet(
        { uid: ids.fleetUid(), projectUid: ctx.project.uid, label: settings.label, created: ctx.now },
        settings,
      );
      await store.projects.createFleet(fleet);
      watchdogs.changed();
      return fleetView(fleet, []);
    },
    { status: 201 },
  );

  router.project("GET", `${P}/fleets/:fleetUID`, "viewer", async (ctx) => {
    const fleet = await resolveFleet(ctx, ctx.params.fleetUID!);
    return fleetView(fleet, await store.env.get({ kind: "fleet", uid: fleet.uid }));
  });

  router.project("PUT", `${P}/fleets/:fleetUID`, "developer", async (ctx) => {
    const fleet = await resolveFleet(ctx, ctx.params.fleetUID!);
    const body = ctx.body(UPDATE_FLEET);
    const settings = fleetSettings(body);
    const resolveAll = async (uids: string[] = []): Promise<string[]> => {
      const out: string[] = [];
      for (const uid of uids) out.push((await resolveDevice(ctx, uid)).uid);
      return out;
    };
    const add = await resolveAll(body.addDevices);
    const remove = await resolveAll(body.removeDevices);
    try {
      const updated = await store.projects.updateFleet(fleet.uid, settings, { add, remove });
      watchdogs.changed();
      return fleetView(updated, await store.env.get({ kind: "fleet", uid: fleet.uid }));
    } catch (e) {
      if (e instanceof StoreError && e.code === "not-found") throw errors.fleetNotFound(fleet.uid);
      throw e;
    }
  });

  router.project("DELETE", `${P}/fleets/:fleetUID`, "developer", async (ctx) => {
    const fleet = await resolveFleet(ctx, ctx.params.fleetUID!);
    await store.projects.deleteFleet(fleet.uid);
    watchdogs.changed();
    ctx.reply.code(204);
    return undefined;
  });
}
