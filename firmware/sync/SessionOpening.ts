import { decodeBase64, encodeBase64 } from "../../core/base64.js";
import type { JsonObject } from "../../core/json.js";
import { publicKeyToPem } from "../../core/Crypto.js";
import type {
  ChangeBatch,
  DeviceEnvironment,
  HelloReply,
  OpenReply,
  OpenRequest,
  SessionContext,
  SessionTrigger,
  TowerRecord,
} from "../../protocol/messages.js";
import { signedText } from "../../protocol/messages.js";
import { sessionRadio } from "../../protocol/sessionRadio.js";
import { SYNC_TRACKER } from "../../protocol/trackers.js";
import { PROTOCOL_VERSION } from "../../protocol/version.js";
import { CARD_KEYS, type TimeZone } from "../config/CardSettings.js";
import { hubSettings, type SyncMode } from "../config/HubConfig.js";
import { ENV_KEYS, Environment, type HubEnvironment } from "../env/Environment.js";
import { arrivedUnchanged } from "../storage/noteVersions.js";
import type { CellTower } from "../world/Surroundings.js";
import type { EngineState, SessionTicket } from "./EngineState.js";
import { exchange } from "./HubExchange.js";
import { firstBatch, pushed } from "./OutboundBatches.js";
import { setSyncState, syncState, type Traffic } from "./SyncState.js";
import { SyncFailure, type SyncHost } from "./syncTypes.js";

/*
 * Opening a session: `hello` and `open` (the module proves who it is and says where it is and
 * what it runs), then what the hub's `open` reply says, applied in one turn: the time, the place,
 * the environment, a new tracker session, the notefiles the hub deleted.
 */

/**
 * What the runner asks the open to carry (docs/sync-protocol.md, "Folded messages"): the session's
 * first batch of changes (`push`), and its `close` when nothing else would follow the open but
 * that batch (a hub with something for the module answers the open without closing).
 */
export interface OpenFolds {
  readonly push: boolean;
  /** Work for the session's first turn (what its askers keep with it: `SyncRequest.keep`). */
  readonly first?: () => void;
  readonly close?: { readonly why: string; readonly pull: boolean };
  /**
   * The session's closing work (its sync state and usage), done in the turn that applies an open
   * reply that closed the session: nothing follows such a reply but quiet steps, so the session
   * takes no turn of its own to end.
   */
  readonly ended?: () => void;
}

/**
 * hello and open: the module proves who it is; the hub says what waits for it. With a session
 * ticket of this hub (kept in RAM), the open presents it instead: no hello, no signature. A ticket
 * the hub refuses (expired, a hub restarted with another key, a hub without tickets) is dropped,
 * and the module proves its key at once, in the same session. The open carries the folds asked
 * for; a push the hub took is acknowledged in the turn that applies the reply.
 */
export async function openWithHub(
  state: EngineState,
  why: SessionTrigger,
  traffic: Traffic,
  mode: () => SyncMode,
  fields: JsonObject = {},
  folds: OpenFolds = { push: false },
): Promise<OpenReply> {
  const module = state.module;
  const secure = module.hubLink.secure ?? true;
  const { start, first } = await module.exclusive(() => {
    folds.first?.();
    return {
      start: sessionStart(module, mode),
      first: folds.push ? firstBatch(module, secure) : { last: true },
    };
  });
  const close = first.last ? folds.close : undefined;
  const opening = { fields, start, why, batch: first.batch, close, traffic };
  const ticket = usableTicket(state, start);
  let open: OpenReply | undefined;
  if (ticket) {
    const request = openRequest(opening) as OpenRequest & { ticket?: string };
    request.ticket = ticket.text;
    open = await exchange<OpenReply>(module, request, traffic).catch((error) => {
      if (!(error instanceof SyncFailure) || !FALL_BACK.test(error.message)) throw error;
      state.ticket = undefined;
      return undefined;
    });
  }
  open ??= await provenOpen(state, start, opening, traffic);
  await module.exclusive(() => {
    opened(state, open, start.trackerHub);
    if (start.context.triangulate) module.triangulationSent();
    if (open.pushed && first.batch && !open.reset && open.deleted === undefined) {
      pushed(module, first.batch);
      traffic.notes_sent += first.batch.notes.length;
    }
    if (open.closed === true) folds.ended?.();
  });
  return open;
}

/** What an `open` request is made of (`openRequest`). */
interface Opening {
  readonly fields: JsonObject;
  readonly start: SessionStart;
  readonly why: SessionTrigger;
  readonly batch: ChangeBatch | undefined;
  readonly close: OpenFolds["close"];
  readonly traffic: Traffic;
}

/**
 * The `open` request, member by member in the order of `{ ...fields, v, type, ... }` (no spread
 * copies); a function of its own, not a closure made each session.
 */
function openRequest(o: Opening): OpenRequest {
  const request: Record<string, unknown> = Object.assign({}, o.fields);
  request["v"] = PROTOCOL_VERSION;
  request["type"] = "open";
  request["device"] = o.start.device;
  request["product"] = o.start.product;
  request["why"] = o.why;
  request["tracker"] = o.start.tracker;
  request["context"] = o.start.context;
  if (o.batch) request["push"] = o.batch;
  // The module's count so far (a hello, a refused ticket): the hub adds the open's own.
  if (o.close) request["close"] = { why: o.close.why, pull: o.close.pull, usage: { ...o.traffic } };
  return request as OpenRequest;
}

/** A ticket refused for what a full proof mends (a hub before tickets answers `{bad-request}`). */
const FALL_BACK = /^\{(ticket|auth|bad-request)\}/;

type SessionStart = ReturnType<typeof sessionStart>;

/** The ticket to present: one of this hub, device, product and key, not yet expired. */
function usableTicket(state: EngineState, start: SessionStart): SessionTicket | undefined {
  const t = state.ticket;
  if (!t) return undefined;
  const same =
    t.hub === start.trackerHub &&
    t.device === start.device &&
    t.product === start.product &&
    t.publicKey === start.publicKey;
  if (same && t.until > state.module.clock.now() && state.module.hubLink.secure !== false) return t;
  state.ticket = undefined;
  return undefined;
}

/** The full proof: hello, then an open signed over the hub's challenge. Keeps the ticket answered. */
async function provenOpen(
  state: EngineState,
  start: SessionStart,
  opening: Opening,
  traffic: Traffic,
): Promise<OpenReply> {
  const module = state.module;
  const hello = await exchange<HelloReply>(
    module,
    { v: PROTOCOL_VERSION, type: "hello", device: start.device, product: start.product },
    traffic,
  );
  const signature = await module.crypto.sign(
    decodeBase64(start.privateKey)!,
    new TextEncoder().encode(signedText(start.device, start.product, hello.challenge)),
  );
  const open = await exchange<OpenReply>(
    module,
    {
      ...openRequest(opening),
      challenge: hello.challenge,
      signature: encodeBase64(signature),
      // Always: the hub does not say whether it holds the key (that would tell anyone which
      // devices it knows); it ignores the key once it holds one.
      key: publicKeyToPem(decodeBase64(start.publicKey)!),
    },
    traffic,
  );
  if (open.ticket !== undefined && open.ticket_expires !== undefined) {
    state.ticket = {
      text: open.ticket,
      // The hub's expiry in the module's clock (the two may differ until the reply sets it).
      until: module.clock.now() + (open.ticket_expires - open.time),
      hub: start.trackerHub,
      device: start.device,
      product: start.product,
      publicKey: start.publicKey,
    };
  }
  return open;
}

/** The session's opening data, read in one turn (and the key pair made if missing). */
function sessionStart(module: SyncHost, mode: () => SyncMode) {
  const settings = hubSettings(module);
  const product = settings.product ?? module.defaultProduct;
  if (!product) throw new SyncFailure("no ProductUID is set (hub.set product) {no-product}");
  const identity = module.identity();
  if (!identity.key) throw new SyncFailure("the module has no key pair {auth}");
  const state = syncState(module.notebox);
  const hubName = settings.host ?? "";
  const tracker = state.hub === hubName ? (state.tracker ?? "") : "";
  const voltage = module.voltage.now();
  const radio = module.radio.state();
  const report = module.locationReport();
  const defaults = new Environment(module.notebox).defaults();
  const context: {
    -readonly [K in keyof SessionContext]: SessionContext[K];
  } = {
    firmware: module.firmware(),
    sku: module.variant.sku,
    voltage: voltage.volts,
    usb: voltage.usb,
    radio: sessionRadio(radio),
    continuous: mode() === "continuous",
  };
  const energy = module.energyFields?.();
  if (energy) context.energy = energy;
  if (settings.sn) context.sn = settings.sn;
  if (settings.version !== undefined) context.host = settings.version;
  if (report.fix) context.where = { lat: report.fix.lat, lon: report.fix.lon, time: report.fix.time };
  if (report.towers[0]) context.tower = towerRecord(report.towers[0]);
  const station = radio.rat === "wifi" ? module.wifi.join() : undefined;
  if (station?.joined && station.ap) {
    const { ssid, bssid } = station.ap;
    context.wifi = { ssid, ...(bssid ? { bssid } : {}) };
  }
  if (report.triangulation) {
    const t = report.triangulation;
    context.triangulate = {
      mode: t.mode,
      towers: t.towers.map(towerRecord),
      wifi: t.wifi.map((ap) => ({ ssid: ap.ssid, bssid: ap.bssid, rssi: ap.rssi, channel: ap.channel })),
      time: t.wifiTime,
    };
  }
  if (defaults.length > 0 && !module.variant.lora) {
    context.env_defaults = Object.fromEntries(defaults.map((d) => [d.name, d.text]));
  }
  return {
    device: identity.device,
    product,
    privateKey: identity.key.private,
    publicKey: identity.key.public,
    tracker,
    trackerHub: hubName,
    context: context as SessionContext,
  };
}

/** Applies what the hub said when the session opened: time, place, environment, trackers. */
function opened(engine: EngineState, open: OpenReply, hubName: string): void {
  const module = engine.module;
  const box = module.notebox;
  module.setTime(Math.floor(open.time / 1000));
  if (open.where) {
    const place: TimeZone = {
      zone: open.where.zone ?? "UTC,Unknown",
      ...(open.where.minutes !== undefined ? { minutes: open.where.minutes } : {}),
      ...(open.where.area ? { area: open.where.area } : {}),
      ...(open.where.country ? { country: open.where.country } : {}),
      ...(open.where.lat !== undefined ? { lat: open.where.lat } : {}),
      ...(open.where.lon !== undefined ? { lon: open.where.lon } : {}),
    };
    box.setConfig(CARD_KEYS.timeZone, place);
  }
  applyEnvironment(module, open.env);
  const state = syncState(box);
  if (open.reset || state.tracker !== open.tracker || state.hub !== hubName) {
    // A new tracker session: everything is sent again both ways.
    for (const file of box.files()) {
      box.clearTrackerPosition(SYNC_TRACKER, file.name);
      if (file.meta["pulled"] !== undefined) {
        const { ctr: _ctr, pulled: _pulled, ...rest } = file.meta;
        box.setFileMeta(file, rest);
      }
    }
    setSyncState(box, { tracker: open.tracker, hub: hubName });
  }
  if (box.config(CARD_KEYS.deprovision)) box.setConfig(CARD_KEYS.deprovision, undefined);
  engine.deletedForHub = open.deleted ? deleteNotefiles(module, open.deleted) : [];
}

/**
 * The hub deleted these notefiles (Delete Notefiles): what the module holds of the hub's goes
 * with them (an inbound queue whole; of a database, every note the hub has or sent), while the
 * module's own changes the hub has not seen stay, to be sent, and create the notefile on the
 * hub again. Runs again harmlessly when a confirmation was lost. Returns the names to confirm.
 */
function deleteNotefiles(module: SyncHost, names: readonly string[]): readonly string[] {
  const box = module.notebox;
  for (const name of names) {
    const file = box.file(name);
    if (!file || file.kind.direction === "out" || file.kind.direction === "local") continue;
    const synced = box.trackerPosition(SYNC_TRACKER, name) ?? 0;
    const hubs = [...file.notes.values()].filter((n) => n.change <= synced || arrivedUnchanged(n));
    if (file.kind.direction === "in" || hubs.length === file.notes.size) {
      box.deleteFile(name);
      continue;
    }
    for (const note of hubs) box.removeNote(file, note.id);
    const { ctr: _ctr, pulled: _pulled, ...meta } = file.meta;
    box.setFileMeta(file, meta);
  }
  return [...names];
}

/**
 * Keeps the hub's environment (from `open`, or a `signals` reply of a session held open) when it
 * differs from what the module has; ATTN `env` tells the host. Call in the module's turn.
 */
export function applyEnvironment(module: SyncHost, env: DeviceEnvironment): void {
  const box = module.notebox;
  const previous = box.config<HubEnvironment>(ENV_KEYS.hub);
  // Most sessions: no environment on either side, or the same one (compared without copies).
  if (emptyEnvironment(previous) && emptyEnvironment(env)) return;
  if (
    previous !== undefined &&
    sameLayer(previous.device, env.device) &&
    sameLayer(previous.fleet, env.fleet) &&
    sameLayer(previous.project, env.project)
  )
    return;
  box.setConfig(ENV_KEYS.hub, {
    device: { ...env.device },
    fleet: { ...env.fleet },
    project: { ...env.project },
    time: Math.max(env.modified, module.noteTime()),
  });
  module.attn.trigger("env");
}

type Layer = Readonly<Record<string, unknown>> | undefined;

function emptyEnvironment(
  h: { readonly device?: Layer; readonly fleet?: Layer; readonly project?: Layer } | undefined,
): boolean {
  return !h || (emptyLayer(h.device) && emptyLayer(h.fleet) && emptyLayer(h.project));
}

function emptyLayer(layer: Layer): boolean {
  if (!layer) return true;
  for (const _ in layer) return false;
  return true;
}

/** The same variables in the same order with the same values (as their JSON texts would be). */
function sameLayer(kept: Layer, now: Layer): boolean {
  const a = kept ?? {};
  const b = now ?? {};
  const keys = Object.keys(a);
  const others = Object.keys(b);
  if (keys.length !== others.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (key !== others[i]) return false;
    const x = a[key];
    const y = b[key];
    if (x !== y && (typeof x !== "object" || JSON.stringify(x) !== JSON.stringify(y))) return false;
  }
  return true;
}

/** A tower of the world as a session reports it. */
function towerRecord(t: CellTower): TowerRecord {
  return { mcc: t.mcc, mnc: t.mnc, lac: t.lac, cid: t.cid, rat: t.rat, rssi: t.rssi, lat: t.lat, lon: t.lon };
}
