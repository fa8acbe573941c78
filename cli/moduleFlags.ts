import { InvalidArgumentError } from "commander";
import { SIGNAL_PRESETS, type SignalPreset } from "../firmware/radio/RadioConditions.js";
import type { HubConnection } from "../runtime/SimulatedModule.js";
import type { SupplySource } from "../runtime/supplyChange.js";
import { CliError } from "./CliError.js";
import { readDischargeCsv } from "./options.js";

// The values of `cardsim module`'s flags, and what they name in files and on the hub, read and
// checked: a mistake is one line naming the flag.

/** The flags that name files and the hub. */
export interface ModuleInputFlags {
  readonly dir: string;
  /** The hub to sync with (`https://HOST:PORT`, or `http://` on loopback). */
  hub?: string;
  /** The hub's CA certificate file (default: the one in D/credentials.json). */
  hubCa?: string;
  /** The ProductUID to sync with until the host sets one (default: D/credentials.json's). */
  product?: string;
  /** Where the module is (`LAT,LON`). */
  location?: { lat: number; lon: number };
  /** A GPX or NMEA track the module travels along, and its speed for a track without times. */
  track?: string;
  trackSpeed?: number;
  /** A discharge curve (`--discharge`). */
  discharge?: string;
  /** `cardsim up`: the hub in this process the module syncs with (not a command-line option). */
  linkedHub?: HubConnection;
}

/** What the flags name in files and on the hub: the hub link, the track, the discharge curve. */
export async function readInputs(options: ModuleInputFlags) {
  const hub = options.linkedHub ?? (options.hub ? await hubConnection(options) : undefined);
  const track = options.track ? await readTrack(options.track, options.trackSpeed) : undefined;
  const discharge = options.discharge !== undefined ? await readDischarge(options.discharge) : undefined;
  return {
    ...(hub ? { hub } : {}),
    world: { ...(options.location ? { position: options.location } : {}), ...(track ? { track } : {}) },
    ...(discharge ? { discharge } : {}),
  };
}

/** `LAT,LON` in degrees. */
export function parseLocation(value: string): { lat: number; lon: number } {
  const match = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(value);
  const lat = Number(match?.[1]);
  const lon = Number(match?.[2]);
  if (!match || Math.abs(lat) > 90 || Math.abs(lon) > 180) {
    throw new InvalidArgumentError(`expected LAT,LON in degrees (like 52.52,13.405), got "${value}"`);
  }
  return { lat, lon };
}

export function parseSignal(value: string): SignalPreset {
  const preset = value.trim().toLowerCase();
  if (!(SIGNAL_PRESETS as readonly string[]).includes(preset))
    throw new InvalidArgumentError(`use one of ${SIGNAL_PRESETS.join(", ")} (none: no network at all)`);
  return preset as SignalPreset;
}

export function parseLatency(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < 0)
    throw new InvalidArgumentError(`give milliseconds >= 0, like --latency 800`);
  return n;
}

export function parseSupply(value: string): SupplySource {
  const source = value.trim().toLowerCase();
  if (source !== "usb" && source !== "battery" && source !== "line")
    throw new InvalidArgumentError("use usb, battery or line");
  return source;
}

export function parseVoltage(value: string): number {
  const n = Number(value.trim().replace(/v$/i, ""));
  if (value.trim() === "" || !Number.isFinite(n) || n < 0 || n > 30)
    throw new InvalidArgumentError("give volts between 0 and 30, like --voltage 3.7");
  return n;
}

/** The `--discharge` curve: a linear model, or a CSV file read and checked (one line per mistake). */
export async function readDischarge(spec: string) {
  const linear = spec.trim().toLowerCase().startsWith("linear:");
  const text = linear ? undefined : await readDischargeCsv(spec, "--discharge");
  const { parseDischarge, parseLinearDischarge } = await import("../runtime/DischargeCurve.js");
  if (text === undefined) {
    try {
      return parseLinearDischarge(spec.trim());
    } catch (error) {
      throw new CliError(`--discharge ${(error as Error).message}`);
    }
  }
  try {
    return parseDischarge(text);
  } catch (error) {
    throw new CliError(`--discharge ${spec}: ${(error as Error).message}: fix that row`);
  }
}

export function parseFloatOption(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError(`expected a positive number, got "${value}"`);
  return n;
}

/** A track file, read and checked; a bad file is the user's mistake, said in one line. */
export async function readTrack(path: string, speed: number | undefined) {
  const [{ readFile }, { parseTrack }] = await Promise.all([
    import("node:fs/promises"),
    import("../runtime/tracks/parseTrack.js"),
  ]);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new InvalidArgumentError(
      `--track ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  try {
    return parseTrack(text, speed !== undefined ? { speed } : {});
  } catch (error) {
    throw new InvalidArgumentError(`--track ${path}: ${(error as Error).message}`);
  }
}

/** `--hub URL`: HTTPS to that hub, trusting its CA (from --hub-ca or D/credentials.json). */
export async function hubConnection(options: ModuleInputFlags): Promise<HubConnection> {
  const [{ readFile }, { join }, { parseHubUrl }] = await Promise.all([
    import("node:fs/promises"),
    import("node:path"),
    import("../runtime/HttpsHubLink.js"),
  ]);
  const url = options.hub!;
  try {
    parseHubUrl(url);
  } catch (error) {
    throw new InvalidArgumentError(`--hub: ${(error as Error).message}`);
  }
  let credentials: { ca_cert?: string | null; product_uid?: string } = {};
  try {
    credentials = JSON.parse(
      await readFile(join(options.dir, "credentials.json"), "utf8"),
    ) as typeof credentials;
  } catch {
    // No local hub's credentials: --hub-ca and --product (or the host's hub.set product) say it.
  }
  const ca = options.hubCa ?? credentials.ca_cert ?? undefined;
  const product = options.product ?? credentials.product_uid;
  if (ca !== undefined) {
    try {
      await readFile(ca);
    } catch {
      throw new InvalidArgumentError(`--hub-ca ${ca}: cannot read the hub's CA certificate`);
    }
  }
  return { url, ...(ca ? { ca } : {}), ...(product ? { product } : {}) };
}
