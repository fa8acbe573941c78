import type { FastifyInstance } from "fastify";
import type { JsonObject } from "../core/json.js";

/** What `request` resolves to: the status, the body (JSON parsed, text, or bytes) and the headers. */
export interface HubResponse<T = unknown> {
  readonly status: number;
  readonly body: T;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
}

/** A request body: JSON (sent as application/json) or bytes (application/octet-stream). */
export type HubRequestBody =
  JsonObject | readonly unknown[] | string | number | boolean | null | Uint8Array | undefined;

/** A query: repeated for an array (`deviceUID`), left out when undefined. */
export type HubQuery = Readonly<Record<string, string | number | boolean | readonly string[] | undefined>>;

/** The same hub served on a loopback port for real HTTP clients (`listen()`). */
export interface HubListener {
  /** `http://127.0.0.1:PORT`, the base URL of the REST API (`/v1/...`). */
  readonly url: string;
  /** A bearer token of the project's owner (`Authorization: Bearer`, or `X-Session-Token`). */
  readonly token: string;
  readonly projectUid: string;
  readonly productUid: string;
  /** Stops serving this port (the hub goes on). */
  close(): Promise<void>;
}

/** A helper's request the hub refused: its status and the API's error body. */
export class HubApiError extends Error {
  override readonly name = "HubApiError";
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    const err = (body as { err?: unknown } | undefined)?.err;
    super(`${method} ${path}: ${status}${typeof err === "string" ? ` ${err}` : ""}`);
  }
}

/** An event as the API shows it: the note's fields and the hub's. */
export interface HubEvent extends JsonObject {
  /** The event's UID. */
  event: string;
  /** The device's UID. */
  device: string;
  file: string;
  /** Epoch seconds the note was made. */
  when: number;
  /** Epoch seconds (with a fraction) the hub received it. */
  received: number;
}

/** Get Events' filters and paging (query names as the API's). */
export interface GetEventsQuery {
  readonly deviceUID?: string | readonly string[];
  readonly fleetUID?: string | readonly string[];
  /** Notefile names (`_session.qo`, `sensors.qo`). */
  readonly files?: string | readonly string[];
  readonly systemFilesOnly?: boolean;
  /** Epoch seconds, inclusive. */
  readonly startDate?: number;
  readonly endDate?: number;
  readonly dateType?: "captured" | "uploaded";
  readonly sortBy?: string;
  readonly sortOrder?: "asc" | "desc";
  readonly pageSize?: number;
  readonly pageNum?: number;
}

/** Perform DFU Action's device filter (query names as the API's). */
export interface DfuDevices {
  readonly deviceUID?: string | readonly string[];
  readonly fleetUID?: string | readonly string[];
  readonly tag?: string | readonly string[];
}

export type FirmwareType = "host" | "notecard";

/** One call of the REST API as it goes to the hub: the path with its query, headers, body. */
export interface HubApiCall {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly payload?: Buffer;
}

/** The hub's answer to a call: the status, the headers (lower-case names) and the raw body. */
export interface HubApiAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly raw: Buffer;
}

/**
 * What a hub gives its API: the way calls reach it (its fastify app in this process, or HTTP to a
 * hub elsewhere), its owner's token, its project.
 */
export interface HubApiSource {
  send(call: HubApiCall): Promise<HubApiAnswer>;
  readonly token: string;
  readonly projectUid: string;
  readonly productUid: string;
  listen(): Promise<HubListener>;
  /** Resolves once route deliveries and proxied web requests due now have ended. */
  settle(): Promise<void>;
}

const enc = encodeURIComponent;

/** Calls into a fastify app in this process (made on first use), without sockets (`inject`). */
export function injectedInto(app: () => Promise<FastifyInstance>): HubApiSource["send"] {
  return async (call) => {
    const response = await (
      await app()
    ).inject({
      method: call.method as "GET",
      url: call.url,
      headers: call.headers,
      ...(call.payload === undefined ? {} : { payload: call.payload }),
    });
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined)
        headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : String(value);
    }
    return { status: response.statusCode, headers, raw: response.rawPayload };
  };
}

function queryString(query: HubQuery | undefined): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value as readonly string[]) params.append(key, item);
    else params.append(key, String(value));
  }
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}

function parseBody(contentType: string | undefined, raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  if (contentType?.includes("json")) return JSON.parse(raw.toString("utf8")) as unknown;
  if (contentType?.startsWith("text/")) return raw.toString("utf8");
  return new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength);
}

/**
 * A hub's REST API called in this process as its project's owner: every route the hub serves,
 * with the same validation, errors and shapes, without sockets (fastify's `inject`), on the hub's
 * clock. `listen()` serves the same hub on a loopback port for real HTTP clients. The helpers are
 * named after the API's operations and throw a `HubApiError` when the hub refuses.
 */
export class HubApi {
  readonly #source: HubApiSource;

  constructor(source: HubApiSource) {
    this.#source = source;
  }

  get projectUid(): string {
    return this.#source.projectUid;
  }

  get productUid(): string {
    return this.#source.productUid;
  }

  /**
   * Calls the REST API: `path` from `/v1` on (a query may be in it or in `options.query`). A JSON
   * body goes as application/json, bytes as application/octet-stream. Never throws for a status:
   * an error is `{ status, body: { err, code, status, ... } }`.
   */
  async request<T = unknown>(
    method: string,
    path: string,
    body?: HubRequestBody,
    options: { query?: HubQuery; headers?: Readonly<Record<string, string>> } = {},
  ): Promise<HubResponse<T>> {
    const bytes = body instanceof Uint8Array;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#source.token}`,
      ...(body === undefined
        ? {}
        : { "content-type": bytes ? "application/octet-stream" : "application/json" }),
      ...options.headers,
    };
    const answer = await this.#source.send({
      method: method.toUpperCase(),
      url: `${path}${queryString(options.query)}`,
      headers,
      ...(body === undefined
        ? {}
        : { payload: bytes ? Buffer.from(body) : Buffer.from(JSON.stringify(body), "utf8") }),
    });
    return {
      status: answer.status,
      body: parseBody(answer.headers["content-type"], answer.raw) as T,
      headers: answer.headers,
    };
  }

  /** The same hub on a loopback port (127.0.0.1, a free port) for real HTTP clients, on the hub's clock. */
  listen(): Promise<HubListener> {
    return this.#source.listen();
  }

  /**
   * Resolves once the hub has nothing left to do now: events heard are queued for their routes,
   * and deliveries and proxied web requests due now have ended (later retries wait for the clock).
   */
  settle(): Promise<void> {
    return this.#source.settle();
  }

  /** A helper's call: the body on success, a HubApiError otherwise. */
  async #call<T>(method: string, path: string, body?: HubRequestBody, query?: HubQuery): Promise<T> {
    const response = await this.request<T>(method, path, body, query ? { query } : {});
    if (response.status >= 400) throw new HubApiError(method, path, response.status, response.body);
    return response.body;
  }

  #project(rest = ""): string {
    return `/v1/projects/${enc(this.projectUid)}${rest}`;
  }

  #device(deviceUID: string, rest = ""): string {
    return this.#project(`/devices/${enc(deviceUID)}${rest}`);
  }

  // --- devices and fleets ------------------------------------------------------------------------

  /** Get Devices: the project's devices (a page). */
  getDevices(query: HubQuery = {}): Promise<{ devices: JsonObject[]; has_more: boolean }> {
    return this.#call("GET", this.#project("/devices"), undefined, query);
  }

  /** Get Device. */
  getDevice(deviceUID: string): Promise<JsonObject> {
    return this.#call("GET", this.#device(deviceUID));
  }

  /** Provision Device: a device known to the project before it first connects. */
  provisionDevice(
    deviceUID: string,
    body: { product_uid?: string; fleet_uids?: string[] } = {},
  ): Promise<void> {
    return this.#call("POST", this.#device(deviceUID, "/provision"), {
      product_uid: this.productUid,
      ...body,
    });
  }

  /** Get Fleets. */
  async getFleets(): Promise<JsonObject[]> {
    return (await this.#call<{ fleets: JsonObject[] }>("GET", this.#project("/fleets"))).fleets;
  }

  /** Create Fleet: `{ label }` and the other fields of the API; returns the fleet (`uid`). */
  createFleet(body: { label: string } & JsonObject): Promise<JsonObject & { uid: string }> {
    return this.#call("POST", this.#project("/fleets"), body);
  }

  /** Add Device to Fleets. */
  addDeviceToFleets(deviceUID: string, fleetUIDs: readonly string[]): Promise<JsonObject> {
    return this.#call("PUT", this.#device(deviceUID, "/fleets"), { fleet_uids: [...fleetUIDs] });
  }

  /** Signal Device: a signal to a device, delivered at once to one in a continuous session (`hub.signal`). */
  async signalDevice(deviceUID: string, body: JsonObject): Promise<void> {
    await this.#call("POST", this.#device(deviceUID, "/signal"), { body });
  }

  // --- events ------------------------------------------------------------------------------------

  /** Get Events: the project's events with the API's filters (`files`, `deviceUID`, dates, paging). */
  getEvents(
    query: GetEventsQuery = {},
  ): Promise<{ events: HubEvent[]; has_more: boolean; through?: string }> {
    const { files, ...rest } = query;
    const joined = files === undefined ? undefined : typeof files === "string" ? files : files.join(",");
    return this.#call("GET", this.#project("/events"), undefined, { ...rest, files: joined });
  }

  // --- environment variables ---------------------------------------------------------------------

  /** Get Project Environment Variables. */
  async getProjectEnvironmentVariables(): Promise<Record<string, string>> {
    return this.#vars(await this.#call("GET", this.#project("/environment_variables")));
  }

  /** Set Project Environment Variables: sets these (others stay); returns all of the project's. */
  async setProjectEnvironmentVariables(
    vars: Readonly<Record<string, string>>,
  ): Promise<Record<string, string>> {
    return this.#vars(
      await this.#call("PUT", this.#project("/environment_variables"), {
        environment_variables: { ...vars },
      }),
    );
  }

  /** Delete Project Environment Variable. */
  async deleteProjectEnvironmentVariable(key: string): Promise<void> {
    await this.#call("DELETE", this.#project(`/environment_variables/${enc(key)}`));
  }

  /** Get Fleet Environment Variables. */
  async getFleetEnvironmentVariables(fleetUID: string): Promise<Record<string, string>> {
    return this.#vars(
      await this.#call("GET", this.#project(`/fleets/${enc(fleetUID)}/environment_variables`)),
    );
  }

  /** Set Fleet Environment Variables: sets these (others stay); returns all of the fleet's. */
  async setFleetEnvironmentVariables(
    fleetUID: string,
    vars: Readonly<Record<string, string>>,
  ): Promise<Record<string, string>> {
    const path = this.#project(`/fleets/${enc(fleetUID)}/environment_variables`);
    return this.#vars(await this.#call("PUT", path, { environment_variables: { ...vars } }));
  }

  /** Delete Fleet Environment Variable. */
  async deleteFleetEnvironmentVariable(fleetUID: string, key: string): Promise<void> {
    await this.#call("DELETE", this.#project(`/fleets/${enc(fleetUID)}/environment_variables/${enc(key)}`));
  }

  /** Get Device Environment Variables: the device's own (the response's other maps in `request`). */
  async getDeviceEnvironmentVariables(deviceUID: string): Promise<Record<string, string>> {
    return this.#vars(await this.#call("GET", this.#device(deviceUID, "/environment_variables")));
  }

  /** Set Device Environment Variables: sets these (others stay); returns all of the device's own. */
  async setDeviceEnvironmentVariables(
    deviceUID: string,
    vars: Readonly<Record<string, string>>,
  ): Promise<Record<string, string>> {
    const path = this.#device(deviceUID, "/environment_variables");
    return this.#vars(await this.#call("PUT", path, { environment_variables: { ...vars } }));
  }

  /** Delete Device Environment Variable. */
  async deleteDeviceEnvironmentVariable(deviceUID: string, key: string): Promise<void> {
    await this.#call("DELETE", this.#device(deviceUID, `/environment_variables/${enc(key)}`));
  }

  #vars(body: unknown): Record<string, string> {
    return { ...(body as { environment_variables: Record<string, string> }).environment_variables };
  }

  // --- notes -------------------------------------------------------------------------------------

  /** Add Qi Note: a note into a device's inbound queue (`.qi`, `.qis`), delivered at its next sync. */
  async addQiNote(
    deviceUID: string,
    notefileID: string,
    note: { body?: JsonObject; payload?: string },
  ): Promise<void> {
    await this.#call("POST", this.#device(deviceUID, `/notes/${enc(notefileID)}`), { ...note });
  }

  /** Add Db Note: a note with an ID into a device's database notefile (`.db`, `.dbs`). */
  async addDbNote(
    deviceUID: string,
    notefileID: string,
    noteID: string,
    note: { body?: JsonObject; payload?: string },
  ): Promise<void> {
    await this.#call("POST", this.#device(deviceUID, `/notes/${enc(notefileID)}/${enc(noteID)}`), {
      ...note,
    });
  }

  // --- firmware and DFU --------------------------------------------------------------------------

  /** Upload Firmware: the image's bytes; returns the stored image's record (`filename`, `md5`...). */
  uploadFirmware(
    firmwareType: FirmwareType,
    filename: string,
    image: Uint8Array,
    options: { version?: string; notes?: string } = {},
  ): Promise<JsonObject & { filename: string }> {
    return this.#call("PUT", this.#project(`/firmware/${firmwareType}/${enc(filename)}`), image, options);
  }

  /** Perform DFU Action: `update` the devices to an uploaded image (its `filename`), or `cancel`. */
  async performDfuAction(
    firmwareType: FirmwareType,
    action: "update" | "cancel",
    devices: DfuDevices,
    body: { filename?: string } = {},
  ): Promise<void> {
    await this.#call("POST", this.#project(`/dfu/${firmwareType}/${action}`), { ...body }, { ...devices });
  }

  /** Get Device DFU Status: the device's current firmware and its latest update's state. */
  getDeviceDfuStatus(deviceUID: string, firmwareType: FirmwareType): Promise<JsonObject> {
    return this.#call("GET", this.#device(deviceUID, `/dfu/${firmwareType}/status`));
  }

  // --- routes ------------------------------------------------------------------------------------

  /** Create Route: `{ label, type, http | proxy | mqtt ... }` as the API takes it; returns it (`uid`). */
  createRoute(body: { label: string; type: string } & JsonObject): Promise<JsonObject & { uid: string }> {
    return this.#call("POST", this.#project("/routes"), body);
  }

  /** Get Route Logs by Route: the route's deliveries, newest first. */
  getRouteLogsByRoute(routeUID: string, query: HubQuery = {}): Promise<JsonObject[]> {
    return this.#call("GET", this.#project(`/routes/${enc(routeUID)}/route-logs`), undefined, query);
  }
}
