import * as errors from "../errors.js";
import type { HubStore } from "../store/HubStore.js";
import type { DeviceRecord, EnvScope, EnvVarRecord, FleetRecord, ProjectRecord } from "../store/records.js";
import type { HubServices } from "../HubServices.js";
import type { HubRouter, ProjectContext, PublicContext } from "./HubRouter.js";
import { ENVIRONMENT_VARIABLES } from "./requestBodies.js";
import { resolveDevice, resolveFleet } from "./resolve.js";
import { envMap } from "./views.js";
import type { JsonObject } from "../../core/json.js";

/**
 * Precedence of each level (1 wins): the device's own value, then its fleets', then the
 * project's, then the module's env.default (spec and docs: "The Hierarchy of Environment
 * Variables"). A device in several fleets takes, per variable, the most recently changed value.
 */
const PRECEDENCE = { device: 1, fleet: 2, project: 3, default: 4 } as const;

/** Most variables one PUT may set, and the longest name and value. */
const MAX_VARS = 1000;
const MAX_KEY = 256;
const MAX_VALUE = 64 * 1024;

type Source = { level: "device" | "project" | "default" } | { level: "fleet"; fleetUid: string };
type ProjectEnv = Awaited<ReturnType<HubStore["env"]["forProject"]>>;

/** The value a device gets for each variable, and where it comes from. */
export function resolveEnvironment(
  device: DeviceRecord,
  env: ProjectEnv,
): Map<string, { value: string; source: Source }> {
  const out = new Map<string, { value: string; source: Source }>();
  for (const v of env.defaults.get(device.uid) ?? [])
    out.set(v.key, { value: v.value, source: { level: "default" } });
  for (const v of env.project) out.set(v.key, { value: v.value, source: { level: "project" } });
  const fromFleets = new Map<string, { v: EnvVarRecord; fleetUid: string }>();
  for (const fleetUid of device.fleetUids) {
    for (const v of env.fleets.get(fleetUid) ?? []) {
      const seen = fromFleets.get(v.key);
      if (!seen || v.modified > seen.v.modified) fromFleets.set(v.key, { v, fleetUid });
    }
  }
  for (const [key, { v, fleetUid }] of fromFleets)
    out.set(key, { value: v.value, source: { level: "fleet", fleetUid } });
  for (const v of env.devices.get(device.uid) ?? [])
    out.set(v.key, { value: v.value, source: { level: "device" } });
  return out;
}

function sameSource(a: Source, b: Source): boolean {
  return a.level === b.level && (a.level !== "fleet" || (b.level === "fleet" && a.fleetUid === b.fleetUid));
}

/** Validated `{environment_variables: {name: text}}` of a PUT. */
function readVariables(ctx: PublicContext): Record<string, string> {
  const vars = ctx.body(ENVIRONMENT_VARIABLES).environment_variables;
  const entries = Object.entries(vars);
  if (entries.length > MAX_VARS)
    throw errors.fieldInvalid("environment_variables", `may hold at most ${MAX_VARS} variables`);
  for (const [key, value] of entries) {
    // eslint-disable-next-line no-control-regex
    if (key.trim() === "" || key.length > MAX_KEY || /[\u0000-\u001f\u007f]/.test(key)) {
      throw errors.fieldInvalid(
        "environment_variables",
        `names must be 1 to ${MAX_KEY} printable characters`,
      );
    }
    if (value.length > MAX_VALUE) {
      throw errors.fieldInvalid(`environment_variables.${key}`, `may be at most ${MAX_VALUE} characters`);
    }
  }
  return vars;
}

interface TreeInput {
  project: ProjectRecord;
  fleets: FleetRecord[];
  /** Devices to show; each appears under each of its (shown) fleets, or under the project. */
  devices: DeviceRecord[];
  env: ProjectEnv;
  baseUrl: string;
}

/**
 * The EnvTreeJsonNode view: project → fleets → devices. `used` says whether the value reaches at
 * least one device of the node's subtree; `inherited_var_count` counts variables a node receives
 * from its ancestors without redefining them.
 */
function environmentTree(input: TreeInput): JsonObject {
  const { project, env, baseUrl } = input;
  const resolved = new Map(input.devices.map((d) => [d.uid, resolveEnvironment(d, env)]));
  const base = `${baseUrl}/v1/projects/${encodeURIComponent(project.uid)}`;

  const variables = (vars: readonly EnvVarRecord[], source: Source, devices: DeviceRecord[]): JsonObject[] =>
    vars.map((v) => ({
      key: v.key,
      value: v.value,
      precedence: PRECEDENCE[source.level],
      used: devices.some((d) => {
        const r = resolved.get(d.uid)?.get(v.key);
        return r !== undefined && sameSource(r.source, source);
      }),
    }));

  const deviceNode = (d: DeviceRecord, inherited: Set<string>): JsonObject => {
    const own = env.devices.get(d.uid) ?? [];
    const ownKeys = new Set(own.map((v) => v.key));
    return {
      type: "device",
      app_uid: project.uid,
      app_label: project.label,
      device_uid: d.uid,
      url: `${base}/devices/${encodeURIComponent(d.uid)}/environment_variables`,
      var_count: own.length,
      inherited_var_count: [...inherited].filter((k) => !ownKeys.has(k)).length,
      variables: variables(own, { level: "device" }, [d]),
      children: [],
    };
  };

  const projectKeys = new Set(env.project.map((v) => v.key));
  const shownFleets = new Set(input.fleets.map((f) => f.uid));
  const fleetNodes = input.fleets.map((f) => {
    const own = env.fleets.get(f.uid) ?? [];
    const members = input.devices.filter((d) => d.fleetUids.includes(f.uid));
    const ownKeys = new Set(own.map((v) => v.key));
    const reaching = new Set([...projectKeys, ...ownKeys]);
    return {
      type: "fleet",
      app_uid: project.uid,
      app_label: project.label,
      fleet_uid: f.uid,
      fleet_label: f.label,
      url: `${base}/fleets/${encodeURIComponent(f.uid)}/environment_variables`,
      var_count: own.length,
      inherited_var_count: [...projectKeys].filter((k) => !ownKeys.has(k)).length,
      variables: variables(own, { level: "fleet", fleetUid: f.uid }, members),
      children: members.map((d) => deviceNode(d, reaching)),
    };
  });
  const loose = input.devices.filter((d) => !d.fleetUids.some((f) => shownFleets.has(f)));
  return {
    type: "app",
    app_uid: project.uid,
    app_label: project.label,
    url: `${base}/environment_variables`,
    var_count: env.project.length,
    inherited_var_count: 0,
    variables: variables(env.project, { level: "project" }, input.devices),
    children: [...fleetNodes, ...loose.map((d) => deviceNode(d, projectKeys))],
  };
}

/** Every device of a project (hierarchy views need them all, not a page). */
async function allDevices(store: HubStore, projectUid: string, fleetUid?: string): Promise<DeviceRecord[]> {
  const out: DeviceRecord[] = [];
  const limit = 1000;
  for (let offset = 0; ; offset += limit) {
    const page = await store.devices.listDevices(projectUid, fleetUid ? { fleetUids: [fleetUid] } : {}, {
      offset,
      limit,
    });
    out.push(...page.items);
    if (!page.hasMore) return out;
  }
}

/**
 * The devices whose environment a level's change touches hear of it once it is committed: a
 * session held open (continuous mode) gets the new values at once, as the hosted hub tells a
 * connected module.
 */
async function tell(services: HubServices, projectUid: string, scope: EnvScope): Promise<void> {
  const { store } = services;
  const uids =
    scope.kind === "device" || scope.kind === "device_default"
      ? [scope.uid]
      : (await allDevices(store, projectUid, scope.kind === "fleet" ? scope.uid : undefined)).map(
          (d) => d.uid,
        );
  store.afterCommit(() => {
    for (const uid of uids) services.notifier.notify(uid, "env");
  });
}

/** A PUT of one level's variables (the body read here): the level's variables as they now are. */
export async function putEnvironment(
  ctx: PublicContext,
  projectUid: string,
  scope: EnvScope,
): Promise<JsonObject> {
  const vars = readVariables(ctx);
  const stored = await ctx.services.store.env.set(scope, vars, ctx.now);
  await tell(ctx.services, projectUid, scope);
  return { environment_variables: envMap(stored) };
}

/** A device's GET: its own variables, those its module declared, and the values it gets. */
export async function deviceEnvironment(services: HubServices, device: DeviceRecord): Promise<JsonObject> {
  const { store } = services;
  const vars = await store.env.get({ kind: "device", uid: device.uid });
  const env = await store.env.forProject(device.projectUid);
  const effective: Record<string, string> = {};
  for (const [key, { value }] of [...resolveEnvironment(device, env)].sort(([a], [b]) =>
    a.localeCompare(b),
  )) {
    effective[key] = value;
  }
  return {
    environment_variables: envMap(vars),
    environment_variables_env_default: envMap(env.defaults.get(device.uid) ?? []),
    environment_variables_effective: effective,
  };
}

/** Environment variables at project, fleet and device level, and the hierarchy views. */
export function registerEnvRoutes(router: HubRouter): void {
  const { store } = router.services;
  const P = "/v1/projects/:projectUID";

  /** GET, PUT and DELETE of one level's variables. */
  const level = (
    path: string,
    scopeOf: (ctx: ProjectContext) => Promise<EnvScope>,
    view: (ctx: ProjectContext, scope: EnvScope, vars: EnvVarRecord[]) => Promise<JsonObject>,
  ): void => {
    router.project("GET", `${path}/environment_variables`, "viewer", async (ctx) => {
      const scope = await scopeOf(ctx);
      return view(ctx, scope, await store.env.get(scope));
    });
    router.project("PUT", `${path}/environment_variables`, "developer", async (ctx) =>
      putEnvironment(ctx, ctx.project.uid, await scopeOf(ctx)),
    );
    router.project("DELETE", `${path}/environment_variables/:key`, "developer", async (ctx) => {
      const scope = await scopeOf(ctx);
      if (!(await store.env.delete(scope, ctx.params.key!))) throw errors.envVarNotFound(ctx.params.key!);
      await tell(router.services, ctx.project.uid, scope);
      return { environment_variables: envMap(await store.env.get(scope)) };
    });
  };

  const plain = async (
    _ctx: ProjectContext,
    _scope: EnvScope,
    vars: EnvVarRecord[],
  ): Promise<JsonObject> => ({
    environment_variables: envMap(vars),
  });

  level(P, async (ctx) => ({ kind: "project", uid: ctx.project.uid }), plain);
  level(
    `${P}/fleets/:fleetUID`,
    async (ctx) => ({ kind: "fleet", uid: (await resolveFleet(ctx, ctx.params.fleetUID!)).uid }),
    plain,
  );
  level(
    `${P}/devices/:deviceUID`,
    async (ctx) => ({ kind: "device", uid: (await resolveDevice(ctx, ctx.params.deviceUID!)).uid }),
    async (_ctx, scope) => deviceEnvironment(router.services, (await store.devices.getDevice(scope.uid))!),
  );

  router.project("GET", `${P}/environment_hierarchy`, "viewer", async (ctx) =>
    environmentTree({
      project: ctx.project,
      fleets: await store.projects.listFleets(ctx.project.uid),
      devices: await allDevices(store, ctx.project.uid),
      env: await store.env.forProject(ctx.project.uid),
      baseUrl: router.services.publicUrl(),
    }),
  );

  router.project("GET", `${P}/fleets/:fleetUID/environment_hierarchy`, "viewer", async (ctx) => {
    const fleet = await resolveFleet(ctx, ctx.params.fleetUID!);
    return environmentTree({
      project: ctx.project,
      fleets: [fleet],
      devices: await allDevices(store, ctx.project.uid, fleet.uid),
      env: await store.env.forProject(ctx.project.uid),
      baseUrl: router.services.publicUrl(),
    });
  });

  router.project("GET", `${P}/devices/:deviceUID/environment_hierarchy`, "viewer", async (ctx) => {
    const device = await resolveDevice(ctx, ctx.params.deviceUID!);
    const fleets = (await store.projects.listFleets(ctx.project.uid)).filter((f) =>
      device.fleetUids.includes(f.uid),
    );
    return environmentTree({
      project: ctx.project,
      fleets,
      devices: [device],
      env: await store.env.forProject(ctx.project.uid),
      baseUrl: router.services.publicUrl(),
    });
  });
}
