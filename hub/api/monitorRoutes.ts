import type { JsonObject } from "../../core/json.js";
import * as errors from "../errors.js";
import { monitorRules } from "../monitors/monitorRules.js";
import type { MonitorRecord } from "../store/AutomationStore.js";
import { CREATE_MONITOR, UPDATE_MONITOR } from "./automationBodies.js";
import type { HubRouter, ProjectContext } from "./HubRouter.js";

/** The settings a monitor keeps: the fields its bodies name, nothing else a client sent. */
const SETTINGS = Object.keys((UPDATE_MONITOR.schema.properties ?? {}) as object);

function settingsOf(body: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of SETTINGS) if (body[key] !== undefined) out[key] = body[key];
  return out;
}

/** What the evaluation needs that the schema cannot say: a selector, and a window to aggregate over. */
function checkRules(settings: JsonObject): void {
  const rules = monitorRules(settings);
  if (rules.condition !== "count" && rules.selector.trim() === "") {
    throw errors.fieldRequired("source_selector (unless condition_type is count)");
  }
  if ((rules.aggregate !== "none" || rules.condition === "count") && rules.windowMs === 0) {
    throw errors.fieldInvalid(
      "aggregate_window",
      "is required (and above 0) with an aggregate_function or the count condition",
    );
  }
}

/** The Monitor as the API answers it: its settings, its UID, whether it is in alert, when it last routed. */
export function monitorView(m: MonitorRecord): JsonObject {
  const open = (m.state.open ?? {}) as JsonObject;
  const out: JsonObject = { uid: m.uid, ...m.settings, alert: Object.keys(open).length > 0 };
  if (typeof m.state.last_routed_ms === "number")
    out.last_routed_at = new Date(m.state.last_routed_ms).toISOString();
  return out;
}

async function resolveMonitor(ctx: ProjectContext, uid: string): Promise<MonitorRecord> {
  const monitor = await ctx.services.store.monitors.getMonitor(uid);
  if (!monitor || monitor.projectUid !== ctx.project.uid) throw errors.monitorNotFound(uid);
  return monitor;
}

/** Monitors (list, create, get, update, delete) and the alerts they raised. */
export function registerMonitorRoutes(router: HubRouter): void {
  const { store, ids, monitors } = router.services;
  const P = "/v1/projects/:projectUID";

  router.project("GET", `${P}/monitors`, "viewer", async (ctx) =>
    (await store.monitors.listMonitors(ctx.project.uid)).map(monitorView),
  );

  router.project(
    "POST",
    `${P}/monitors`,
    "developer",
    async (ctx) => {
      const settings = settingsOf(ctx.body(CREATE_MONITOR) as JsonObject);
      checkRules(settings);
      const monitor: MonitorRecord = {
        uid: `monitor:${ids.uuid()}`,
        projectUid: ctx.project.uid,
        settings,
        state: {},
        created: ctx.now,
        modified: ctx.now,
      };
      await store.monitors.createMonitor(monitor);
      return monitorView(monitor);
    },
    { status: 201 },
  );

  router.project("GET", `${P}/monitors/:monitorUID`, "viewer", async (ctx) =>
    monitorView(await resolveMonitor(ctx, ctx.params.monitorUID!)),
  );

  router.project("PUT", `${P}/monitors/:monitorUID`, "developer", async (ctx) => {
    const monitor = await resolveMonitor(ctx, ctx.params.monitorUID!);
    const settings = { ...monitor.settings, ...settingsOf(ctx.body(UPDATE_MONITOR) as JsonObject) };
    checkRules(settings);
    await store.monitors.updateMonitor(monitor.uid, settings, ctx.now);
    monitors.changed(monitor.uid);
    return monitorView({ ...monitor, settings, modified: ctx.now });
  });

  router.project("DELETE", `${P}/monitors/:monitorUID`, "developer", async (ctx) => {
    const monitor = await resolveMonitor(ctx, ctx.params.monitorUID!);
    await store.monitors.deleteMonitor(monitor.uid);
    monitors.changed(monitor.uid);
    return monitorView(monitor);
  });

  router.project("GET", `${P}/alerts`, "viewer", async (ctx) => {
    const page = ctx.query.page();
    const monitorUid = ctx.query.string("monitorUID");
    const result = await store.monitors.listAlerts(
      ctx.project.uid,
      monitorUid === undefined ? {} : { monitorUid },
      page,
    );
    return { alerts: result.items.map((a) => a.document), has_more: result.hasMore };
  });
}
