import type { Command } from "commander";
import { CliError } from "./CliError.js";
import { parseHostPort } from "./options.js";

/** Where `cardsim module --control` is usually asked to listen, and where `cardsim world` looks. */
export const DEFAULT_CONTROL = "127.0.0.1:9601";

interface WorldOptions {
  control?: { host: string; port: number };
  speed?: string;
}

const USAGE = [
  "status",
  "move LAT,LON | move none",
  "track FILE [--speed M/S]",
  "stop",
  "moving | still | auto",
  "shake [N]",
  "temp CELSIUS",
  "light LUX | light none",
  "gps on | gps off",
  "charging on | charging off",
  "mojo on | mojo off",
  "aux PIN high | aux PIN low | aux PIN release",
  "ap add SSID [PASSWORD] [RSSI] | ap remove SSID | ap none | ap default",
  "radio",
  "signal good|fair|poor|none [RAT]",
  "outage [registration|hub] [SECONDS]",
  "restore",
  "latency MS",
  "failhub N",
  "supply | supply usb|battery|line [VOLTS]",
  "voltage VOLTS",
  "discharge FILE|linear:FROM-TO/TIME | discharge stop",
];

/** A change for the radio (`/radio`) or the supply (`/supply`) rather than the world. */
interface PartChange {
  readonly path: "/radio" | "/supply";
  readonly body: Record<string, unknown> | undefined;
}

/**
 * `cardsim world`: drives the world of a module started with `--control HOST:PORT` (where it is,
 * how it moves, its temperature, its AUX pins), as a scenario does in tests.
 */
export function registerWorldCommand(program: Command): void {
  program
    .command("world")
    .description("move, shake or heat a running module, or drive its AUX pins (it needs --control)")
    .argument("<what...>", USAGE.join("; "))
    .option(
      "--control <HOST:PORT>",
      `the module's control address (default ${DEFAULT_CONTROL})`,
      parseHostPort,
    )
    .option("--speed <M/S>", "speed along a track whose points have no times")
    .action(async (what: string[], options: WorldOptions) => {
      const part = await partChangeFor(what);
      const change = part ? part.body : await changeFor(what, options);
      const address = options.control ?? parseHostPort(DEFAULT_CONTROL);
      const url = `http://${address.host}:${address.port}${part?.path ?? "/world"}`;
      let response: Response;
      try {
        response = await fetch(url, change ? { method: "POST", body: JSON.stringify(change) } : {});
      } catch {
        throw new CliError(
          `no module answers at ${address.host}:${address.port}: start one with cardsim module --control ${address.host}:${address.port} (or give --control)`,
        );
      }
      const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
      if (!response.ok)
        throw new CliError(String(body["err"] ?? `the module answered HTTP ${response.status}`));
      process.stdout.write(JSON.stringify(body) + "\n");
    });
}

/** `cardsim world signal poor`, `outage hub 60`, `supply battery 3.4` ...: radio and supply changes. */
async function partChangeFor(what: string[]): Promise<PartChange | undefined> {
  const [verb, ...rest] = what;
  const usage = () => new CliError(`cardsim world ${what.join(" ")}: expected one of: ${USAGE.join("; ")}`);
  const number = (text: string | undefined, min = 0) => {
    const n = Number(text);
    if (text === undefined || !Number.isFinite(n) || n < min) throw usage();
    return n;
  };
  const radio = (op: string, args: unknown[]): PartChange => ({ path: "/radio", body: { op, args } });
  switch (verb) {
    case "radio":
      return { path: "/radio", body: undefined };
    case "signal":
      if (!["good", "fair", "poor", "none"].includes(rest[0] ?? "")) throw usage();
      return radio("signal", rest.slice(0, 2));
    case "outage": {
      const what = rest[0] === "hub" || rest[0] === "registration" ? rest[0] : undefined;
      const seconds = what ? rest[1] : rest[0];
      return radio("outage", [
        what ?? "registration",
        ...(seconds !== undefined ? [number(seconds) * 1000] : []),
      ]);
    }
    case "restore":
      return radio("restore", []);
    case "latency":
      return radio("latency", [number(rest[0])]);
    case "failhub":
      return radio("failConnects", [number(rest[0])]);
    case "supply": {
      if (rest.length === 0) return { path: "/supply", body: undefined };
      const source = rest[0];
      if (source !== "usb" && source !== "battery" && source !== "line") throw usage();
      return {
        path: "/supply",
        body: { source, ...(rest[1] !== undefined ? { volts: number(rest[1]) } : {}) },
      };
    }
    case "voltage":
      return { path: "/supply", body: { volts: number(rest[0]) } };
    case "discharge": {
      const spec = rest[0];
      if (spec === undefined || rest.length > 1) throw usage();
      if (spec === "stop") return { path: "/supply", body: { discharge: null } };
      if (spec.trim().toLowerCase().startsWith("linear:"))
        return { path: "/supply", body: { discharge: spec } };
      // A CSV is read here and sent as text: the module may run on another machine.
      return {
        path: "/supply",
        body: { discharge: await dischargeCsv(spec) },
      };
    }
    default:
      return undefined;
  }
}

async function changeFor(
  what: string[],
  options: WorldOptions,
): Promise<{ op: string; args: unknown[] } | undefined> {
  const [verb, ...rest] = what;
  const arg = rest[0];
  const usage = () => new CliError(`cardsim world ${what.join(" ")}: expected one of: ${USAGE.join("; ")}`);
  const number = (text: string | undefined) => {
    const n = Number(text);
    if (text === undefined || !Number.isFinite(n)) throw usage();
    return n;
  };
  switch (verb) {
    case "status":
      return undefined;
    case "move": {
      if (arg === "none") return { op: "setPosition", args: [null] };
      const { parseLocation } = await import("./moduleFlags.js");
      if (arg === undefined) throw usage();
      try {
        return { op: "setPosition", args: [parseLocation(arg)] };
      } catch (error) {
        throw new CliError((error as Error).message);
      }
    }
    case "track": {
      if (arg === undefined) throw usage();
      const [{ readFile }, { parseTrack }] = await Promise.all([
        import("node:fs/promises"),
        import("../runtime/tracks/parseTrack.js"),
      ]);
      const text = await readFile(arg, "utf8").catch((error: NodeJS.ErrnoException) => {
        throw new CliError(`${arg}: ${error.code ?? error.message}`);
      });
      try {
        const track = parseTrack(text, options.speed !== undefined ? { speed: number(options.speed) } : {});
        return { op: "playTrack", args: [track.toPoints()] };
      } catch (error) {
        throw new CliError(`${arg}: ${(error as Error).message}`);
      }
    }
    case "stop":
      return { op: "stopTrack", args: [] };
    case "moving":
    case "still":
    case "auto":
      return { op: "setMotion", args: [verb] };
    case "shake":
      return { op: "shake", args: [arg === undefined ? 1 : number(arg)] };
    case "temp":
      return { op: "setTemperature", args: [number(arg)] };
    case "light":
      return { op: "setLight", args: [arg === "none" ? null : number(arg)] };
    case "gps":
      if (arg !== "on" && arg !== "off") throw usage();
      return { op: "setGps", args: [{ signal: arg === "on" }] };
    case "charging":
      if (arg !== "on" && arg !== "off") throw usage();
      return { op: "setCharging", args: [arg === "on"] };
    case "mojo":
      if (arg !== "on" && arg !== "off") throw usage();
      return { op: "setMojo", args: [arg === "on"] };
    case "ap":
      return accessPointChange(rest, usage);
    case "aux": {
      const pin = number(arg);
      const level = rest[1];
      if (![1, 2, 3, 4].includes(pin)) throw usage();
      if (level === "release") return { op: "releaseAux", args: [pin] };
      if (level !== "high" && level !== "low") throw usage();
      return { op: "driveAux", args: [pin, level === "high"] };
    }
    default:
      throw usage();
  }
}

/** `cardsim world ap ...`: WiFi access points in range (a password makes it WPA2-PSK). */
export function accessPointChange(rest: string[], usage: () => CliError): { op: string; args: unknown[] } {
  const [what, ssid, password, rssi] = rest;
  if (what === "none" && ssid === undefined) return { op: "setAccessPoints", args: [[]] };
  if (what === "default" && ssid === undefined) return { op: "setAccessPoints", args: [null] };
  if (what === "remove" && ssid !== undefined && password === undefined)
    return { op: "removeAccessPoint", args: [ssid] };
  if (what !== "add" || ssid === undefined) throw usage();
  const dbm = rssi === undefined ? undefined : Number(rssi);
  if (dbm !== undefined && !Number.isFinite(dbm)) throw usage();
  const open = password === undefined || password === "-";
  return {
    op: "addAccessPoint",
    args: [
      {
        ssid,
        security: open ? "open" : "wpa2-psk",
        ...(open ? {} : { password }),
        ...(dbm !== undefined ? { rssi: dbm } : {}),
      },
    ],
  };
}

/** A discharge CSV for `cardsim world discharge`; one that cannot be read is the user's to fix. */
async function dischargeCsv(spec: string): Promise<string> {
  const { readDischargeCsv } = await import("../runtime/rigInputs.js");
  return readDischargeCsv(spec, "cardsim world discharge").catch((error: Error) => {
    throw new CliError(error.message);
  });
}
