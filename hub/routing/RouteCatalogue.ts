import type { Clock } from "../../core/Clock.js";
import type { JsonObject } from "../../core/json.js";
import type { HubIds } from "../HubIds.js";
import { ServiceError } from "../ServiceError.js";
import type { HubStore } from "../store/HubStore.js";
import type { EventRecord } from "../store/records.js";
import type { RouteRecord } from "../store/RouteStore.js";
import { routeFleets, routeTakesDevice, routeTakesFile } from "./routeFilter.js";
import { routeTarget } from "./routeFields.js";
import { routeFromBody, routeWithChanges } from "./routeSettings.js";
import type { RouteTargets } from "./RouteTargets.js";

/**
 * The route catalogue: a project's route definitions (create, read, update, delete), the checks
 * made when one is written (its settings, its fleets, its target under the policy in force), and
 * the routes an event goes to. Route records are kept by UID, and each project's list is loaded
 * on first use and kept current by the writes made here.
 */
export class RouteCatalogue {
  readonly #routes = new Map<string, RouteRecord>();
  readonly #projects = new Map<string, Promise<RouteRecord[]>>();

  constructor(
    private readonly store: HubStore,
    private readonly clock: Clock,
    private readonly ids: HubIds,
    private readonly targets: RouteTargets,
  ) {}

  /** The project's routes, oldest first. */
  async list(projectUid: string): Promise<RouteRecord[]> {
    return [...(await this.routesOf(projectUid))];
  }

  /** A route of the project. */
  async get(projectUid: string, routeUid: string): Promise<RouteRecord | undefined> {
    const route = await this.store.routes.getRoute(routeUid);
    return route && route.projectUid === projectUid ? route : undefined;
  }

  /**
   * Creates a route from a Create Route body (either definition's shape) whose field types have
   * been checked (the API's schema, hub/api/routeBody.ts); refusals are ServiceErrors.
   */
  async create(projectUid: string, body: JsonObject): Promise<RouteRecord> {
    const definition = routeFromBody(body);
    this.#checkTarget(definition);
    await this.#checkFleets(projectUid, definition.settings);
    const now = this.clock.now();
    const route: RouteRecord = {
      uid: `route:${this.ids.uuid().replace(/-/g, "")}`,
      projectUid,
      ...definition,
      created: now,
      modified: now,
    };
    await this.store.routes.createRoute(route);
    this.#changed(route);
    return route;
  }

  /** Applies an Update Route body (types checked, as for create); undefined when the project has no such route. */
  async update(projectUid: string, routeUid: string, body: JsonObject): Promise<RouteRecord | undefined> {
    const current = await this.get(projectUid, routeUid);
    if (!current) return undefined;
    const definition = routeWithChanges(current, body);
    // Checked when the target changes: a route made under another policy may still be disabled.
    if (routeTarget(definition)?.url !== routeTarget(current)?.url) this.#checkTarget(definition);
    await this.#checkFleets(projectUid, definition.settings);
    const route: RouteRecord = { ...current, ...definition, modified: this.clock.now() };
    await this.store.routes.updateRoute(route);
    this.#changed(route);
    return route;
  }

  /** Deletes a route with its pending deliveries (its logs stay); false when there was none. */
  async delete(projectUid: string, routeUid: string): Promise<boolean> {
    const current = await this.get(projectUid, routeUid);
    if (!current) return false;
    await this.store.routes.deleteRoute(routeUid);
    this.#routes.delete(routeUid);
    this.#projects.delete(projectUid);
    return true;
  }

  /** The route with this UID as last loaded or written here; undefined when deleted or not loaded. */
  cached(routeUid: string): RouteRecord | undefined {
    return this.#routes.get(routeUid);
  }

  /** Keeps a route read from the store (the deliveries resumed at start). */
  remember(route: RouteRecord): void {
    this.#routes.set(route.uid, route);
  }

  /** The project's routes (loaded once, then kept current). */
  routesOf(projectUid: string): Promise<RouteRecord[]> {
    let routes = this.#projects.get(projectUid);
    if (!routes) {
      routes = this.store.routes.listRoutes(projectUid).then((list) => {
        for (const r of list) this.#routes.set(r.uid, r);
        return list;
      });
      routes.catch(() => this.#projects.delete(projectUid));
      this.#projects.set(projectUid, routes);
    }
    return routes;
  }

  /** A project's routes that deliver events: enabled, not proxies. */
  async delivering(projectUid: string): Promise<RouteRecord[]> {
    return (await this.routesOf(projectUid)).filter((r) => !r.disabled && r.type !== "proxy");
  }

  /**
   * The routes an event goes to: of its project's `delivering` routes (looked up when not given),
   * those whose notefile filter takes it and whose fleets its device is in.
   */
  async routesFor(event: EventRecord, delivering?: readonly RouteRecord[]): Promise<RouteRecord[]> {
    const routes = (delivering ?? (await this.delivering(event.projectUid))).filter((r) =>
      routeTakesFile(r, event.file),
    );
    if (routes.length === 0) return routes;
    let fleets: string[] | undefined;
    const out: RouteRecord[] = [];
    for (const route of routes) {
      if (routeFleets(route).length > 0) {
        fleets ??= (await this.store.devices.getDevice(event.deviceUid))?.fleetUids ?? [];
        if (!routeTakesDevice(route, fleets)) continue;
      }
      out.push(route);
    }
    return out;
  }

  async #checkFleets(projectUid: string, settings: JsonObject): Promise<void> {
    for (const uid of routeFleets({ settings } as RouteRecord)) {
      const fleet = await this.store.projects.getFleet(uid);
      if (!fleet || fleet.projectUid !== projectUid) {
        throw new ServiceError("fleet-elsewhere", uid, `fleet ${uid} is not in ${projectUid}`);
      }
    }
  }

  /** Refuses a delivered route's target the policy refuses as written (checked again at delivery). */
  #checkTarget(definition: Pick<RouteRecord, "type" | "schema" | "settings">): void {
    const target = routeTarget(definition);
    if (!target) return;
    let url: URL;
    try {
      url = new URL(target.url);
    } catch {
      return; // routeSettings has said what is wrong with it
    }
    const why = this.targets.definitionRefusal(url);
    if (why) throw new ServiceError("invalid", target.field, `${target.field}: ${why}`);
  }

  #changed(route: RouteRecord): void {
    this.#routes.set(route.uid, route);
    this.#projects.delete(route.projectUid);
  }
}
