import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { SimPowerSource } from "../firmware/PowerSource.js";
import {
  SIGNAL_PRESETS,
  type SignalPreset,
  type SimRadioConditions,
} from "../firmware/radio/RadioConditions.js";
import type { World } from "../firmware/world/World.js";
import { consoleAsset, consolePage, CONSOLE_HEADERS } from "../hub/console/consolePage.js";
import type { DischargePlayer } from "./DischargeCurve.js";
import type { ModuleMonitor } from "./ModuleMonitor.js";
import { changeSupply, type SupplyChange } from "./supplyChange.js";
import { applyWorldChange, isWorldChange, WORLD_CHANGES } from "../firmware/world/worldChanges.js";

const MAX_BODY = 4 * 1024 * 1024;

/** What `GET /world` answers: where the module is and what it feels. */
export function worldState(world: World): Record<string, unknown> {
  return {
    position: world.position() ?? null,
    playing: world.playing,
    gps: world.gps(),
    moving: world.moving(),
    orientation: world.orientation(),
    temperature: world.temperature(),
    light: world.light() ?? null,
    charging: world.charging(),
    mojo: world.mojo(),
    accessPoints: world.accessPoints.list() ?? null,
    aux: [1, 2, 3, 4].map((pin) => world.aux.level(pin as 1 | 2 | 3 | 4)),
  };
}

/** The module's radio and supply, when the control API also drives them. */
export interface ControlledParts {
  readonly radio?: SimRadioConditions;
  readonly power?: SimPowerSource;
  /** Discharge curves played on `power` (`POST /supply` with `discharge`). */
  readonly discharge?: DischargePlayer;
  /** The module page at `/` (its trace, sessions, supply, energy and position). */
  readonly monitor?: ModuleMonitor;
}

/** What `GET /radio` answers. */
export function radioState(radio: SimRadioConditions): Record<string, unknown> {
  return { ...radio.state(), failConnects: radio.connectFailuresLeft };
}

/** What `GET /supply` answers. */
export function supplyState(power: SimPowerSource, discharge?: DischargePlayer): Record<string, unknown> {
  return {
    volts: power.volts,
    usb: power.onUsb,
    ...(discharge ? { discharge: discharge.state() ?? null } : {}),
  };
}

/** Radio changes `POST /radio` takes: `{"op": ..., "args": [...]}`. */
export const RADIO_CHANGES = ["signal", "set", "outage", "restore", "latency", "failConnects"] as const;

/**
 * The running module's world, driven from outside (`cardsim module --control HOST:PORT`, and
 * `cardsim world` talks to it): `GET /world` reads it, `POST /world` with
 * `{"op": <World method>, "args": [...]}` changes it, as a scenario's recorded world changes do.
 * Loopback by default; it controls a simulation, nothing else.
 */
export class WorldControlServer {
  readonly #server: Server;
  readonly address: { host: string; port: number };

  private constructor(server: Server, address: { host: string; port: number }) {
    this.#server = server;
    this.address = address;
  }

  static listen(
    world: World,
    host: string,
    port: number,
    parts: ControlledParts = {},
  ): Promise<WorldControlServer> {
    const server = createServer((request, response) => {
      handle(world, parts, request, response).catch((error: unknown) =>
        answer(response, 500, { err: String((error as Error)?.message ?? error) }),
      );
    });
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        const address = server.address() as AddressInfo;
        resolve(new WorldControlServer(server, { host, port: address.port }));
      });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }
}

async function handle(
  world: World,
  parts: ControlledParts,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const path = (request.url ?? "/").split("?")[0]!;
  if (parts.monitor && request.method === "GET" && (await handlePage(parts.monitor, path, response))) return;
  if (path === "/radio" && parts.radio) return handleRadio(parts.radio, request, response);
  if (path === "/supply" && parts.power) return handleSupply(parts.power, parts.discharge, request, response);
  if (path !== "/world") {
    const more = [parts.radio ? " /radio" : "", parts.power ? " /supply" : ""].join("");
    return answer(response, 404, { err: `no ${path} here: GET or POST /world${more}` });
  }
  if (request.method === "GET") return answer(response, 200, worldState(world));
  if (request.method !== "POST") return answer(response, 405, { err: "GET or POST /world" });
  const body = await readJson(request, response, '{"op": ..., "args": [...]}');
  if (body === undefined) return;
  const change = body as { op?: unknown; args?: unknown };
  if (!isWorldChange(change.op)) {
    return answer(response, 400, { err: `op must be one of ${WORLD_CHANGES.join(", ")}` });
  }
  const args = change.args === undefined ? [] : change.args;
  if (!Array.isArray(args)) return answer(response, 400, { err: "args must be an array" });
  try {
    applyWorldChange(world, change.op, args);
  } catch (error) {
    return answer(response, 400, { err: String((error as Error)?.message ?? error) });
  }
  return answer(response, 200, worldState(world));
}

/** The module page and what it reads: `/`, its bundle, `/module/state`, `/module/stream`. */
async function handlePage(monitor: ModuleMonitor, path: string, response: ServerResponse): Promise<boolean> {
  if (path === "/" || path === "/module") {
    response.writeHead(200, { ...CONSOLE_HEADERS, "content-type": "text/html; charset=utf-8" });
    response.end(consolePage("module"));
    return true;
  }
  if (path.startsWith("/console/assets/")) {
    const asset = await consoleAsset(path.slice("/console/assets/".length));
    if (!asset) return false;
    response.writeHead(200, { ...CONSOLE_HEADERS, "content-type": asset.type });
    response.end(asset.body);
    return true;
  }
  if (path === "/module/state") {
    answer(response, 200, await monitor.state());
    return true;
  }
  if (path === "/module/stream") {
    monitor.stream(response);
    return true;
  }
  return false;
}

/** Reads a JSON object body; answers the error itself and returns undefined on a bad one. */
async function readJson(
  request: IncomingMessage,
  response: ServerResponse,
  shape: string,
): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) {
      answer(response, 413, { err: "a change is at most 4 MiB" });
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    if (value !== null && typeof value === "object" && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // answered below
  }
  answer(response, 400, { err: `the body must be JSON: ${shape}` });
  return undefined;
}

async function handleRadio(
  radio: SimRadioConditions,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  if (request.method === "GET") return answer(response, 200, radioState(radio));
  if (request.method !== "POST") return answer(response, 405, { err: "GET or POST /radio" });
  const change = await readJson(request, response, '{"op": ..., "args": [...]}');
  if (change === undefined) return;
  const op = change["op"];
  const args = change["args"] === undefined ? [] : change["args"];
  if (!Array.isArray(args)) return answer(response, 400, { err: "args must be an array" });
  try {
    switch (op) {
      case "signal":
        if (!SIGNAL_PRESETS.includes(args[0] as SignalPreset))
          throw new Error(`signal takes a preset: one of ${SIGNAL_PRESETS.join(", ")}`);
        radio.signal(args[0] as SignalPreset, typeof args[1] === "string" ? args[1] : undefined);
        break;
      case "set": {
        const fields = args[0];
        if (fields === null || typeof fields !== "object" || Array.isArray(fields))
          throw new Error("set takes an object of radio fields (rssi, rsrp, rsrq, sinr, bars, rat, bearer)");
        radio.set(fields as Record<string, never>);
        break;
      }
      case "outage": {
        const what = args[0] ?? "registration";
        if (what !== "registration" && what !== "hub") throw new Error("outage is of registration or hub");
        const forMs = args[1];
        if (forMs !== undefined && typeof forMs !== "number")
          throw new Error("an outage lasts a number of ms");
        radio.outage(what, forMs);
        break;
      }
      case "restore":
        radio.restore();
        break;
      case "latency":
        radio.latency(Number(args[0]));
        break;
      case "failConnects":
        radio.failConnects(Number(args[0]));
        break;
      default:
        throw new Error(`op must be one of ${RADIO_CHANGES.join(", ")}`);
    }
  } catch (error) {
    return answer(response, 400, { err: String((error as Error)?.message ?? error) });
  }
  return answer(response, 200, radioState(radio));
}

async function handleSupply(
  power: SimPowerSource,
  discharge: DischargePlayer | undefined,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  if (request.method === "GET") return answer(response, 200, supplyState(power, discharge));
  if (request.method !== "POST") return answer(response, 405, { err: "GET or POST /supply" });
  const change = await readJson(
    request,
    response,
    '{"volts"?: V, "usb"?: true|false, "source"?: "usb"|"battery"|"line", "discharge"?: CURVE|null}',
  );
  if (change === undefined) return;
  const { volts, usb, source } = change;
  const curve = change["discharge"];
  if (volts !== undefined && (typeof volts !== "number" || !Number.isFinite(volts) || volts < 0))
    return answer(response, 400, { err: "volts must be a number >= 0" });
  if (usb !== undefined && typeof usb !== "boolean")
    return answer(response, 400, { err: "usb must be true or false" });
  if (source !== undefined && source !== "usb" && source !== "battery" && source !== "line")
    return answer(response, 400, { err: "source must be usb, battery or line" });
  if (curve !== undefined && curve !== null && typeof curve !== "string")
    return answer(response, 400, {
      err: "discharge is linear:FROM-TO/TIME, the text of a CSV of time,volts, or null to stop",
    });
  if (typeof curve === "string" && volts !== undefined)
    return answer(response, 400, { err: "give volts or a discharge curve, not both" });
  if (curve !== undefined && !discharge)
    return answer(response, 400, { err: "this module plays no discharge curves" });
  if (typeof curve === "string") {
    try {
      discharge!.play(curve);
    } catch (error) {
      return answer(response, 400, { err: `discharge: ${(error as Error).message}` });
    }
  } else if (curve === null) {
    discharge?.stop();
  }
  changeSupply(power, change as SupplyChange, discharge);
  return answer(response, 200, supplyState(power, discharge));
}

function answer(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent) return;
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body) + "\n");
}
