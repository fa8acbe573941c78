import { encodeBase64 } from "../../core/base64.js";
import type { Clock } from "../../core/Clock.js";
import { isJsonObject, type JsonObject } from "../../core/json.js";
import { md5Hex } from "../../core/md5.js";
import {
  DFU_ERRORS,
  DFU_MAX_ERRORS,
  DFU_TARGETS,
  MAX_ERROR_TEXT,
  MAX_READ_BYTES,
  SYNC_ERRORS,
  type DfuState,
  type DfuTarget,
  type DfuUpdate,
  type FirmwareImage,
  type FirmwareReply,
  type ProtocolReply,
  type ReadReply,
} from "../../protocol/messages.js";
import { PROTOCOL_VERSION } from "../../protocol/version.js";
import type {
  DfuHistoryNode,
  DfuRequestRecord,
  DfuRequestState,
  FirmwareRecord,
  FirmwareType,
} from "../store/FirmwareStore.js";
import type { HubStore } from "../store/HubStore.js";
import type { DeviceRecord } from "../store/records.js";
import { StoreError } from "../store/StoreError.js";
import { deviceVariables, variableOf } from "../sync/deviceEnvironment.js";
import { ACTIVE, DFU_ENV_VARS, isQuiet, offersNothing, TYPE_OF, type VariableOf } from "./firmwareOffer.js";
import type { FirmwareService } from "./FirmwareService.js";

export { DFU_ENV_VARS, TARGET_OF, TYPE_OF } from "./firmwareOffer.js";

/** The device a sync message came from (the sync service checked its session). */
export interface DfuDevice {
  readonly deviceUid: string;
  readonly projectUid: string;
}

/** Steps of a report merged at most (a module keeps fewer). */
const MAX_REPORT_UPDATES = 100;

/** A protocol refusal: `{code}` first, cut to the protocol's length. */
function refusal(code: string, text: string): ProtocolReply {
  const err = `{${code}} ${text}`;
  return { v: PROTOCOL_VERSION, err: err.length > MAX_ERROR_TEXT ? err.slice(0, MAX_ERROR_TEXT) : err };
}

class Refused extends Error {
  constructor(
    readonly code: string,
    readonly text: string,
  ) {
    super(text);
  }
}

const bad = (text: string) => new Refused(SYNC_ERRORS.badRequest, text);

/** What a device record says it runs, as the DFU status's `current` shows it. */
export interface CurrentFirmware {
  version?: string;
  built?: string;
  product?: string;
  organization?: string;
  description?: string;
  builder?: string;
}

/**
 * Firmware updates of devices: the API's update and cancel actions, the `_fw`/`_fwc` environment
 * variables, each device's requests and their history, and the hub's end of the protocol's
 * firmware messages (`firmware`, `read`, `dfu`), which the sync service hands over with the
 * device whose session they came in.
 *
 * What a device should take is what `_fw` (host) or `_fwc` (notecard) names for it (device, then
 * fleet, then project value); the update action sets the device's own value. Each image a device
 * is asked for is one request with a history; a request ends completed, failed or cancelled, and
 * an ended request is not offered again until the variable names another image.
 */
export class DfuService {
  constructor(
    private readonly store: HubStore,
    private readonly clock: Clock,
    private readonly firmware: FirmwareService,
    /** Told of each step of a request (opened, reported, ended) once it is stored for good. */
    private readonly onStep: (request: DfuRequestRecord) => void = () => undefined,
  ) {}

  /** Tells onStep of the request's newest step once the store committed it. */
  #told(request: DfuRequestRecord, state: DfuRequestState, updates: DfuHistoryNode[]): void {
    const told = { ...request, state, updates };
    this.store.afterCommit(() => this.onStep(told));
  }

  // --- the API -----------------------------------------------------------------------------------

  /**
   * The update action: each device is asked to take `filename` (its own `_fw`/`_fwc` is set) and
   * a request is opened, ending any other open one of that type. Returns the devices asked.
   */
  async requestUpdate(
    projectUid: string,
    type: FirmwareType,
    filename: string,
    devices: readonly DeviceRecord[],
  ): Promise<number> {
    const image = await this.firmware.get(projectUid, type, filename);
    let asked = 0;
    for (const device of devices) {
      await this.store.transaction(async () => {
        await this.store.env.set(
          { kind: "device", uid: device.uid },
          { [DFU_ENV_VARS[type]]: image.filename },
          this.clock.now(),
        );
        const latest = await this.store.firmware.latestRequest(projectUid, device.uid, type);
        if (latest && ACTIVE.has(latest.state) && latest.filename === image.filename) return;
        await this.#open(device, type, image, "api", latest);
        asked++;
      });
    }
    return asked;
  }

  /**
   * The cancel action: each device's open request of that type ends cancelled, and its own
   * `_fw`/`_fwc` is removed when it names that image. Returns the requests cancelled.
   */
  async cancel(projectUid: string, type: FirmwareType, devices: readonly DeviceRecord[]): Promise<number> {
    let cancelled = 0;
    for (const device of devices) {
      await this.store.transaction(async () => {
        const latest = await this.store.firmware.latestRequest(projectUid, device.uid, type);
        if (!latest || !ACTIVE.has(latest.state)) return;
        await this.#end(latest, "cancelled", "update cancelled");
        const scope = { kind: "device", uid: device.uid } as const;
        const own = (await this.store.env.get(scope)).find((v) => v.key === DFU_ENV_VARS[type]);
        if (own && own.value.trim() === latest.filename) await this.store.env.delete(scope, own.key);
        cancelled++;
      });
    }
    return cancelled;
  }

  /** The device's newest request of that type, and whether it is still open. */
  async latest(device: DeviceRecord, type: FirmwareType): Promise<DfuRequestRecord | undefined> {
    return this.store.firmware.latestRequest(device.projectUid, device.uid, type);
  }

  /** Every request of the device of that type, newest first. */
  async history(device: DeviceRecord, type: FirmwareType): Promise<DfuRequestRecord[]> {
    return this.store.firmware.listRequests(device.projectUid, device.uid, type);
  }

  /** What the device record says the device runs (the module's, or the host's firmware). */
  current(device: DeviceRecord, type: FirmwareType): CurrentFirmware {
    const text = type === "host" ? device.firmwareHost : device.firmwareModule;
    if (!text) return {};
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return { version: text };
    }
    if (typeof parsed === "string") return { version: parsed };
    if (!isJsonObject(parsed)) return {};
    const str = (k: string) => (typeof parsed[k] === "string" ? (parsed[k] as string) : undefined);
    const out: CurrentFirmware = {};
    const version = str("version") ?? str("firmware");
    if (version) out.version = version;
    for (const [from, to] of [
      ["built", "built"],
      ["product", "product"],
      ["org", "organization"],
      ["organization", "organization"],
      ["description", "description"],
      ["builder", "builder"],
    ] as const) {
      const v = str(from);
      if (v) out[to] = v;
    }
    return out;
  }

  // --- the device protocol --------------------------------------------------------------------

  /**
   * Answers one firmware message of a device's session (`firmware`, `read`, `dfu`): the reply, or
   * a refusal (`{bad-request}`, `{dfu-noexist}`); never throws for what the module sent. Each
   * message is one store transaction. A `read` is served only for the image of the device's own
   * open request of that type (the one offered to it), never any other image of the project.
   */
  async handleSyncMessage(device: DfuDevice, request: unknown): Promise<ProtocolReply> {
    try {
      if (!isJsonObject(request)) throw bad("a message is a JSON object");
      switch (request["type"]) {
        case "firmware":
          return await this.store.transaction(() => this.#firmware(device));
        case "read":
          return await this.#read(device, request);
        case "dfu":
          return await this.store.transaction(() => this.#report(device, request));
        default:
          throw bad(`${String(request["type"])} is not a firmware message`);
      }
    } catch (error) {
      if (error instanceof Refused) return refusal(error.code, error.text);
      throw error;
    }
  }

  /**
   * The firmware offer an `open` carries: the `firmware` message's answer for a device whose
   * record and variables the open has read (`variable`), from two reads when it offers and
   * changes nothing (`offersNothing`), else exactly as the message is answered.
   */
  async offer(device: DeviceRecord, variable: VariableOf): Promise<ProtocolReply> {
    if (await offersNothing(this.store, device, variable)) return { v: PROTOCOL_VERSION };
    const who = { deviceUid: device.uid, projectUid: device.projectUid };
    return this.handleSyncMessage(who, { type: "firmware" });
  }

  async #device(device: DfuDevice): Promise<DeviceRecord> {
    const record = await this.store.devices.getDevice(device.deviceUid);
    if (!record || record.projectUid !== device.projectUid) {
      throw new Refused(SYNC_ERRORS.session, `device ${device.deviceUid} is not in ${device.projectUid}`);
    }
    return record;
  }

  async #firmware(who: DfuDevice): Promise<FirmwareReply> {
    const device = await this.#device(who);
    const reply: { -readonly [K in keyof FirmwareReply]: FirmwareReply[K] } = { v: PROTOCOL_VERSION };
    const vars = await deviceVariables(this.store, device);
    for (const target of DFU_TARGETS) {
      const image = await this.#wanted(device, TYPE_OF[target], (key) => variableOf(vars, key));
      if (image) reply[target] = describe(image);
    }
    return reply;
  }

  /** The image the device should take now, opening or ending requests as the variables say. */
  async #wanted(
    device: DeviceRecord,
    type: FirmwareType,
    variable: VariableOf,
  ): Promise<FirmwareRecord | undefined> {
    const name = variable(DFU_ENV_VARS[type]);
    const latest = await this.store.firmware.latestRequest(device.projectUid, device.uid, type);
    if (isQuiet(name, latest)) return undefined;
    if (name === undefined) {
      await this.#end(latest!, "cancelled", `${DFU_ENV_VARS[type]} no longer names an image`);
      return undefined;
    }
    if (latest && latest.filename === name) {
      const image = await this.store.firmware.getImage(device.projectUid, type, name);
      if (!image) await this.#end(latest, "failed", `firmware ${name} does not exist`);
      return image;
    }
    // The variable names another image than the last request: that one ends, a new one opens.
    const image = await this.store.firmware.getImage(device.projectUid, type, name);
    if (!image) {
      await this.store.firmware.addRequest({
        ...this.#requestBase(device, type, name, null, "env"),
        state: "failed",
        updates: [
          this.#node("requested", "error", `${DFU_ENV_VARS[type]} names ${name}, which does not exist`),
        ],
      });
      if (latest && ACTIVE.has(latest.state)) await this.#end(latest, "cancelled", `superseded by ${name}`);
      return undefined;
    }
    await this.#open(device, type, image, "env", latest);
    return image;
  }

  #requestBase(
    device: DeviceRecord,
    type: FirmwareType,
    filename: string,
    image: FirmwareRecord | null,
    source: "api" | "env",
  ): Omit<DfuRequestRecord, "id" | "state" | "updates"> {
    return {
      projectUid: device.projectUid,
      deviceUid: device.uid,
      type,
      filename,
      initiated: this.clock.now(),
      currentVersion: this.current(device, type).version ?? null,
      requestedVersion: image?.version ?? null,
      source,
      seq: 0,
    };
  }

  async #open(
    device: DeviceRecord,
    type: FirmwareType,
    image: FirmwareRecord,
    source: "api" | "env",
    previous: DfuRequestRecord | undefined,
  ): Promise<DfuRequestRecord> {
    if (previous && ACTIVE.has(previous.state)) {
      await this.#end(previous, "cancelled", `superseded by ${image.filename}`);
    }
    const how = source === "api" ? "requested" : `requested by ${DFU_ENV_VARS[type]}`;
    const opened = await this.store.firmware.addRequest({
      ...this.#requestBase(device, type, image.filename, image, source),
      state: "pending",
      updates: [this.#node("requested", "pending", `update to ${image.filename} ${how}`)],
    });
    this.#told(opened, opened.state, opened.updates);
    return opened;
  }

  async #end(request: DfuRequestRecord, state: "cancelled" | "failed" | "completed", why: string) {
    const phase = state === "failed" ? "error" : state;
    const updates = [...request.updates, this.#node(phase, state === "failed" ? "error" : "ok", why)];
    await this.store.firmware.updateRequest(request.id, { state, updates });
    this.#told(request, state, updates);
  }

  #node(phase: string, status: string, description: string, when = this.clock.now()): DfuHistoryNode {
    return { when, phase, status, description };
  }

  async #read(who: DfuDevice, request: JsonObject): Promise<ReadReply> {
    const target = request["target"];
    const name = request["name"];
    const offset = request["offset"];
    const length = request["length"];
    if (target !== "user" && target !== "card") throw bad("target must be user or card");
    if (typeof name !== "string" || name === "") throw bad("name must name an image");
    if (!Number.isSafeInteger(offset) || (offset as number) < 0) throw bad("offset must be a whole number");
    if (!Number.isSafeInteger(length) || (length as number) < 0 || (length as number) > MAX_READ_BYTES) {
      throw bad(`length must be a whole number up to ${MAX_READ_BYTES}`);
    }
    await this.#device(who);
    const type = TYPE_OF[target];
    // Only the image of the device's own open request of that type: not any image of the project.
    const request_ = await this.store.firmware.latestRequest(who.projectUid, who.deviceUid, type);
    if (!request_ || !ACTIVE.has(request_.state) || request_.filename !== name) {
      throw new Refused(
        DFU_ERRORS.noImage,
        `firmware ${name} is not the ${type} image offered to device ${who.deviceUid}: ` +
          (request_ && ACTIVE.has(request_.state)
            ? `its open update is to ${request_.filename}`
            : `it has no open ${type} update`),
      );
    }
    let data: Uint8Array;
    try {
      data = await this.firmware.read(who.projectUid, type, name, offset as number, length as number);
    } catch (error) {
      if (error instanceof StoreError && error.code === "not-found") {
        throw new Refused(DFU_ERRORS.noImage, `firmware ${name} does not exist`);
      }
      throw error;
    }
    return {
      v: PROTOCOL_VERSION,
      name,
      offset: offset as number,
      data: encodeBase64(data),
      md5: md5Hex(data),
    };
  }

  async #report(who: DfuDevice, request: JsonObject): Promise<ProtocolReply> {
    const target = request["target"];
    if (target !== "user" && target !== "card") throw bad("target must be user or card");
    const state = request["state"];
    if (!isJsonObject(state) || typeof state["mode"] !== "string") throw bad("state must say the mode");
    const updates = request["updates"];
    if (!Array.isArray(updates) || updates.length > MAX_REPORT_UPDATES) {
      throw bad(`updates must be a list of at most ${MAX_REPORT_UPDATES} steps`);
    }
    for (const u of updates) {
      if (!isJsonObject(u) || !Number.isSafeInteger(u["seq"]) || typeof u["mode"] !== "string") {
        throw bad("each update has a seq and a mode");
      }
    }
    const device = await this.#device(who);
    const type = TYPE_OF[target];
    const now = this.clock.now();
    const dfuState = recordState(target, state as DfuState, now);
    await this.store.devices.putDevice({
      uid: device.uid,
      projectUid: device.projectUid,
      productUid: device.productUid,
      details: { dfu: { ...(device.details.dfu ?? {}), [target]: dfuState } },
    });
    const steps = updates as (DfuUpdate & { seq: number })[];
    const request_ = await this.store.firmware.latestRequest(device.projectUid, device.uid, type);
    const file = typeof state["file"] === "string" ? state["file"] : undefined;
    if (!request_) return { v: PROTOCOL_VERSION };
    let seq = request_.seq;
    const nodes = [...request_.updates];
    let next = request_.state;
    let completedAt: number | undefined;
    for (const step of steps) {
      if (step.seq <= seq) continue;
      seq = step.seq;
      const stepFile = typeof step.file === "string" ? step.file : file;
      if (stepFile !== request_.filename) continue;
      const when = typeof step.time === "number" && step.time > 0 ? step.time * 1000 : now;
      const text = typeof step.status === "string" ? step.status : "";
      const failed = step.mode === "error";
      nodes.push({ when, phase: step.mode, status: failed ? "error" : "ok", description: text });
      if (!ACTIVE.has(next)) continue;
      if (step.mode === "completed") {
        next = "completed";
        completedAt = when;
      } else if (step.mode === "stopped" || step.mode === "cancelled") next = "cancelled";
      else if (failed && (typeof state["errors"] === "number" ? state["errors"] : 0) >= DFU_MAX_ERRORS)
        next = "failed";
      else next = "active";
    }
    await this.store.firmware.updateRequest(request_.id, { state: next, updates: nodes, seq });
    if (nodes.length > request_.updates.length) this.#told(request_, next, nodes);
    if (completedAt !== undefined) {
      const version = typeof state["version"] === "string" ? ` (${state["version"]})` : "";
      await this.store.telemetry.addHealthLog({
        projectUid: device.projectUid,
        deviceUid: device.uid,
        whenSec: Math.floor(completedAt / 1000),
        alert: false,
        text: `${type} firmware update completed: ${request_.filename}${version}`,
        type: "dfu_completed",
      });
    }
    return { v: PROTOCOL_VERSION };
  }
}

/** The protocol's view of a stored image (what `dfu.status` shows as `body`). */
function describe(r: FirmwareRecord): FirmwareImage {
  return {
    name: r.filename,
    source: r.source,
    type: r.type === "host" ? "firmware" : "notecard",
    length: r.length,
    md5: r.md5,
    crc32: r.crc32,
    created: Math.floor(r.created / 1000),
    modified: Math.floor(r.modified / 1000),
    ...(r.version ? { version: r.version } : {}),
    ...(r.notes ? { notes: r.notes } : {}),
    ...(r.info ? { info: r.info } : {}),
  };
}

const RECORD_MODES = new Set([
  "idle",
  "error",
  "downloading",
  "sideloading",
  "ready",
  "ready-retry",
  "updating",
  "completed",
]);

/** The device record's DFUState from what the module reported: known members of the right type. */
function recordState(target: DfuTarget, state: DfuState, now: number): JsonObject {
  const out: JsonObject = { type: target, mode: RECORD_MODES.has(state.mode) ? state.mode : "idle" };
  for (const key of ["status", "file", "md5", "version"] as const) {
    if (typeof state[key] === "string") out[key] = state[key];
  }
  for (const key of ["length", "crc32", "read", "began", "errors"] as const) {
    if (typeof state[key] === "number" && Number.isFinite(state[key])) out[key] = state[key];
  }
  out["updated"] =
    typeof state.updated === "number" && state.updated > 0 ? state.updated : Math.floor(now / 1000);
  return out;
}
