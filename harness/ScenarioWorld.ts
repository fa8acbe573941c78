import { decodeBase64, encodeBase64 } from "../core/base64.js";
import { ENV_KEYS, type HubEnvironment } from "../firmware/env/Environment.js";
import type { Module } from "../firmware/Module.js";
import type { SimPowerSource } from "../firmware/PowerSource.js";
import type { PowerLossMode } from "../firmware/storage/flash/PowerLossFlashFs.js";
import { notefileKind } from "../core/NotefileKind.js";
import type { LinkCapture } from "../hil/capture/LinkCapture.js";
import type { HostTraffic } from "./HostTraffic.js";
import type { ScenarioRadio } from "./ScenarioRadio.js";
import type { WorldAction } from "./WorldAction.js";
import type { AccessPoint } from "../firmware/world/AccessPoints.js";
import { applyWorldChange, type WorldChange } from "../firmware/world/worldChanges.js";
import type { AuxPin } from "../firmware/world/AuxPins.js";
import type { GeoPoint } from "../firmware/world/geo.js";
import type {
  CellTower,
  EnvironmentReading,
  GpsConditions,
  Orientation,
} from "../firmware/world/Surroundings.js";
import type { Track } from "../firmware/world/Track.js";
import type { PlayOptions, World } from "../firmware/world/World.js";
import type { JsonObject } from "../core/json.js";
import type { HubApi } from "../runtime/HubApi.js";
import { checkHubEnvScopes, setHubEnvironment, type HubEnvScopes } from "./hubEnvironment.js";

/** What the world needs from its scenario. */
export interface WorldHost {
  /** The module as it is now (a power cycle replaces it). */
  module(): Module;
  /** The physical world around the module (it outlives power cycles). */
  readonly model: World;
  readonly power: SimPowerSource;
  readonly radio: ScenarioRadio;
  readonly traffic: HostTraffic;
  readonly capture: LinkCapture | undefined;
  /**
   * The scenario's hub: its API (an in-process hub), `elsewhere` (a connection to a hub the
   * scenario cannot administer), or undefined (none).
   */
  hub(): HubApi | "elsewhere" | undefined;
  /** Cuts the module's power and boots it again on its flash. */
  powerCycle(): Promise<void>;
  /** The power fails now, losing what was not on the flash medium (power-loss flash only). */
  cutPower(mode: PowerLossMode, offMs: number): Promise<void>;
  /** The power will fail at the `step`-th flash write from now. */
  armPowerLoss(step: number, mode: PowerLossMode, offMs: number): void;
}

/**
 * The module's world, scripted by a scenario: notes arriving from the hub, the supply, coverage,
 * power. Every change happens between two host requests (never inside one), is recorded in the
 * capture, and is applied again at the same moment by a replay.
 */
export class ScenarioWorld {
  readonly #host: WorldHost;

  constructor(host: WorldHost) {
    this.#host = host;
  }

  /**
   * A note arrives from the hub, as the sync engine will deliver it: appended to an inbound queue
   * (`.qi`, `.qis`) or written to a database (`.db`, `.dbs`, which needs `id`).
   */
  inboundNote(
    file: string,
    note: { id?: string; body?: JsonObject; payload?: Uint8Array } = {},
  ): Promise<void> {
    return this.apply({
      action: "inboundNote",
      file,
      ...(note.id !== undefined ? { id: note.id } : {}),
      ...(note.body !== undefined ? { body: note.body } : {}),
      ...(note.payload !== undefined ? { payload: encodeBase64(note.payload) } : {}),
    });
  }

  /**
   * Hub environment variables; each scope given replaces that scope's values. With a hub of the
   * scenario's own (`hub: "in-process"`), they are set on the hub through its REST API (device,
   * the scenario's fleet, project) and reach the module at its next sync, as in reality. Without a
   * hub they are written into the module as the sync engine would write them (`env.get` sees them
   * at once, under any host `env.set` value), recorded in the capture and replayed.
   */
  async hubEnv(scopes: HubEnvScopes): Promise<void> {
    checkHubEnvScopes(scopes);
    const hub = this.#host.hub();
    if (hub === "elsewhere")
      throw new Error(
        "hubEnv: this scenario's hub is a connection of the test's: set the variables through that hub's API (a scenario with hub: \"in-process\" sets them itself)",
      );
    if (hub) return setHubEnvironment(hub, this.#host.module().deviceUid, scopes);
    return this.apply({
      action: "env",
      ...(scopes.device ? { device: { ...scopes.device } } : {}),
      ...(scopes.fleet ? { fleet: { ...scopes.fleet } } : {}),
      ...(scopes.project ? { project: { ...scopes.project } } : {}),
    });
  }

  // --- the physical world (recorded in captures, replayed at the same moment) ---------------

  /** The world model, to read (change it through the methods below, so captures record it). */
  get model(): World {
    return this.#host.model;
  }

  /** Places the module (or takes its position away: no fix is possible). */
  moveTo(point: GeoPoint | undefined): Promise<void> {
    return this.#physical("setPosition", point ?? null);
  }

  /** Plays a recorded path on the module clock (see `parseTrack` for GPX and NMEA files). */
  playTrack(track: Track, options: PlayOptions = {}): Promise<void> {
    return this.#physical("playTrack", track.toPoints(), options);
  }

  stopTrack(): Promise<void> {
    return this.#physical("stopTrack");
  }

  /** What the GPS antenna gets: sky in view, time to fix, precision. */
  gps(conditions: Partial<GpsConditions>): Promise<void> {
    return this.#physical("setGps", conditions);
  }

  /** Sustained motion (`moving`), none (`still`), or motion following a playing track (`auto`). */
  motion(state: "moving" | "still" | "auto", ratePerMinute?: number): Promise<void> {
    return this.#physical("setMotion", state, ...(ratePerMinute !== undefined ? [ratePerMinute] : []));
  }

  shake(count = 1): Promise<void> {
    return this.#physical("shake", count);
  }

  freeFall(): Promise<void> {
    return this.#physical("freeFall");
  }

  orient(orientation: Orientation): Promise<void> {
    return this.#physical("setOrientation", orientation);
  }

  temperature(celsius: number): Promise<void> {
    return this.#physical("setTemperature", celsius);
  }

  /** Lux at a light sensor (undefined: the module has none). */
  light(lux: number | undefined): Promise<void> {
    return this.#physical("setLight", lux ?? null);
  }

  environment(reading: EnvironmentReading | undefined): Promise<void> {
    return this.#physical("setEnvironment", reading ?? null);
  }

  charging(charging: boolean): Promise<void> {
    return this.#physical("setCharging", charging);
  }

  towers(towers: readonly CellTower[] | undefined): Promise<void> {
    return this.#physical("setTowers", towers ?? null);
  }

  /** Attaches (or detaches) a Mojo power monitor on the module's supply (`card.power`). */
  mojo(attached = true): Promise<void> {
    return this.#physical("setMojo", attached);
  }

  /** Puts a WiFi access point in range (`{ssid, security, password, rssi}`; the same SSID replaced). */
  addAccessPoint(ap: AccessPoint): Promise<void> {
    return this.#physical("addAccessPoint", ap);
  }

  /** Takes the access point of `ssid` out of range. */
  removeAccessPoint(ssid: string): Promise<void> {
    return this.#physical("removeAccessPoint", ssid);
  }

  /** The access points in range ([]: none; undefined: not modelled, the module on a network it knows). */
  accessPoints(points: readonly AccessPoint[] | undefined): Promise<void> {
    return this.#physical("setAccessPoints", points ?? null);
  }

  /** Drives an AUX pin from outside (a button, a sensor output), or lets go of it. */
  driveAux(pin: AuxPin, high: boolean): Promise<void> {
    return this.#physical("driveAux", pin, high);
  }

  releaseAux(pin: AuxPin): Promise<void> {
    return this.#physical("releaseAux", pin);
  }

  #physical(op: WorldChange, ...args: unknown[]): Promise<void> {
    return this.apply({ action: "physical", op, args });
  }

  /** Changes the supply the module measures (`card.voltage`, power-source policies). */
  supply(supply: { volts?: number; usb?: boolean }): Promise<void> {
    return this.apply({ action: "supply", ...supply });
  }

  /** Loses coverage (for `forMs`, or until `radioBack`). */
  radioOutage(forMs?: number): Promise<void> {
    return this.apply({ action: "radio", online: false, ...(forMs !== undefined ? { forMs } : {}) });
  }

  radioBack(): Promise<void> {
    return this.apply({ action: "radio", online: true });
  }

  /** The module loses power and boots again with what its flash kept. */
  powerCycle(): Promise<void> {
    return this.apply({ action: "powerCycle" });
  }

  /**
   * The power fails now, between requests: the flash keeps what `mode` says survived (default
   * `drop-unsynced`: only what was synced), and after `offMs` the module boots and recovers.
   * Needs the power-loss flash (`Scenario.start({ flash: true })`).
   */
  powerLoss(options: { mode?: PowerLossMode; offMs?: number } = {}): Promise<void> {
    return this.apply({ action: "powerLoss", ...options });
  }

  /**
   * Arms a power failure at the `step`-th flash write from now (1 = the next one), so that it
   * strikes in the middle of whatever request writes then; `scenario.expectPowerLoss()` waits
   * until the module is back. Step numbers are deterministic: try each in turn to crash a request
   * at every point of its write.
   */
  powerLossAt(step: number, options: { mode?: PowerLossMode; offMs?: number } = {}): Promise<void> {
    return this.apply({ action: "powerLossAt", step, ...options });
  }

  /** Applies one recorded or scripted change (replays call this). */
  apply(action: WorldAction): Promise<void> {
    const host = this.#host;
    return host.traffic.exclusive(async () => {
      host.capture?.record("world", "w2m", "world", undefined, { ...action });
      switch (action.action) {
        case "inboundNote":
          return this.#inboundNote(action);
        case "env":
          return this.#hubEnv(action);
        case "physical":
          applyWorldChange(host.model, action.op, action.args);
          return;
        case "supply":
          if (action.volts !== undefined && !(action.volts >= 0 && action.volts < 100)) {
            throw new Error(`supply volts out of range: ${action.volts}`);
          }
          // One event: plugging in USB raises the voltage at the same moment.
          host.power.set({
            ...(action.volts !== undefined ? { volts: action.volts } : {}),
            ...(action.usb !== undefined ? { onUsb: action.usb } : {}),
          });
          return;
        case "radio":
          host.radio.set(action.online, action.forMs);
          return;
        case "powerCycle":
          return host.powerCycle();
        case "powerLoss":
          return host.cutPower(action.mode ?? "drop-unsynced", action.offMs ?? 0);
        case "powerLossAt":
          host.armPowerLoss(action.step, action.mode ?? "drop-unsynced", action.offMs ?? 0);
          return;
        default:
          throw new Error(`unknown world action ${JSON.stringify(action)}`);
      }
    });
  }

  async #hubEnv(action: Extract<WorldAction, { action: "env" }>): Promise<void> {
    const module = this.#host.module();
    checkHubEnvScopes(action);
    await module.exclusive(() => {
      const box = module.notebox;
      const previous = box.config<HubEnvironment>(ENV_KEYS.hub) ?? {};
      box.setConfig(ENV_KEYS.hub, {
        ...previous,
        ...(action.device !== undefined ? { device: { ...action.device } } : {}),
        ...(action.fleet !== undefined ? { fleet: { ...action.fleet } } : {}),
        ...(action.project !== undefined ? { project: { ...action.project } } : {}),
        time: module.noteTime(),
      } satisfies HubEnvironment);
    });
    // The hub changed the environment: a host watching with card.attn "env" is told.
    module.attn.trigger("env");
  }

  async #inboundNote(action: Extract<WorldAction, { action: "inboundNote" }>): Promise<void> {
    const module = this.#host.module();
    const kind = notefileKind(action.file);
    if (!kind || (kind.direction !== "in" && kind.direction !== "both")) {
      throw new Error(`inbound notes go to .qi, .qis, .db or .dbs notefiles, not "${action.file}"`);
    }
    let payload: Uint8Array | undefined;
    if (action.payload !== undefined) {
      payload = decodeBase64(action.payload);
      if (!payload) throw new Error("inbound note payload is not valid base64");
    }
    const content = {
      ...(action.body !== undefined ? { body: action.body } : {}),
      ...(payload !== undefined ? { payload } : {}),
      time: module.noteTime(),
    };
    await module.exclusive(() => {
      const box = module.notebox;
      if (kind.queue) {
        if (action.id !== undefined) throw new Error(`queue notes have no ID (${action.file})`);
        box.appendToQueue(action.file, content);
        return;
      }
      if (action.id === undefined || action.id === "")
        throw new Error(`a note for ${action.file} needs an id`);
      const file = box.ensureFile(action.file);
      const previous = file.notes.get(action.id);
      box.putNote(file, { ...content, id: action.id, updates: previous ? previous.updates + 1 : 0 });
    });
    // module.exclusive told a host watching this file with ATTN, as after a download.
  }
}
