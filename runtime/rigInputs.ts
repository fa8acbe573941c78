import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseI2cBackend } from "./parseI2cBackend.js";
import type { Track } from "../firmware/world/Track.js";
import type { DischargeCurve } from "./DischargeCurve.js";
import type { HubConnection } from "./SimulatedModule.js";

/**
 * What a rig's options name rather than give, as the command line names them: files (a track, a
 * discharge curve, the hub's CA), a hub by its URL, an I2C backend by its text. `assembleModule`
 * reads and checks them before any part starts; a mistake is a RigInputError that says, in one
 * line naming the flag, what is wrong and what to do.
 */
export interface RigNamedInputs {
  /**
   * The hub at this URL (`https://HOST:PORT`, or `http://` on loopback), trusting `ca`; the CA
   * and the ProductUID default to those in `credentialsDir`/credentials.json (a local hub's).
   */
  readonly hub?: {
    readonly url: string;
    readonly ca?: string;
    readonly product?: string;
    readonly credentialsDir: string;
  };
  /** A GPX or NMEA track file, and the speed along a track without times (m/s). */
  readonly track?: { readonly path: string; readonly speed?: number };
  /** A battery discharge: a CSV file of time,volts, or `linear:FROM-TO/TIME`. */
  readonly discharge?: string;
  /** The I2C backend: `sim[:PROFILE]`, `pigpiod[:HOST[:PORT]]`, `rp2040:DEVICE` or `none`. */
  readonly i2c?: string;
}

/** A named input that cannot be read or is wrong; the message names the flag. */
export class RigInputError extends Error {
  override readonly name = "RigInputError";
}

/** What the inputs name, read: the options `assembleModule` takes for them. */
export interface ReadInputs {
  hub?: HubConnection;
  track?: Track;
  discharge?: DischargeCurve;
  i2c?: ReturnType<typeof parseI2cBackend>;
}

/** Reads and checks each named input (`onBoard`: the rig has a board to put an I2C backend on). */
export async function readNamedInputs(named: RigNamedInputs, onBoard: boolean): Promise<ReadInputs> {
  const out: ReadInputs = {};
  if (named.hub) out.hub = await hubNamed(named.hub);
  if (named.track) out.track = await readTrack(named.track.path, named.track.speed);
  if (named.discharge !== undefined) out.discharge = await readDischarge(named.discharge);
  if (named.i2c !== undefined) out.i2c = i2cNamed(named.i2c, onBoard);
  return out;
}

function i2cNamed(spec: string, onBoard: boolean): ReturnType<typeof parseI2cBackend> {
  let i2c: ReturnType<typeof parseI2cBackend>;
  try {
    i2c = parseI2cBackend(spec);
  } catch (error) {
    throw new RigInputError((error as Error).message);
  }
  if (!onBoard && i2c.i2c === "sim") {
    throw new RigInputError(
      "--i2c sim: the software bus has no controller outside this process; use it from the harness (cardsim/harness), or choose pigpiod or rp2040",
    );
  }
  return i2c;
}

/**
 * The text of a discharge CSV named on the command line; a file that cannot be read is one line
 * starting with `label` (`--discharge`, `cardsim world discharge`) that says what to give.
 */
export async function readDischargeCsv(spec: string, label: string): Promise<string> {
  return readFile(spec, "utf8").catch((error: NodeJS.ErrnoException) => {
    throw new RigInputError(
      `${label} ${spec}: ${error.code === "ENOENT" ? "no such file" : (error.code ?? error.message)} (give a CSV of time,volts or linear:FROM-TO/TIME)`,
    );
  });
}

/** The `--discharge` curve: a linear model, or a CSV file read and checked (one line per mistake). */
async function readDischarge(spec: string): Promise<DischargeCurve> {
  const linear = spec.trim().toLowerCase().startsWith("linear:");
  const text = linear ? undefined : await readDischargeCsv(spec, "--discharge");
  const { parseDischarge, parseLinearDischarge } = await import("./DischargeCurve.js");
  if (text === undefined) {
    try {
      return parseLinearDischarge(spec.trim());
    } catch (error) {
      throw new RigInputError(`--discharge ${(error as Error).message}`);
    }
  }
  try {
    return parseDischarge(text);
  } catch (error) {
    throw new RigInputError(`--discharge ${spec}: ${(error as Error).message}: fix that row`);
  }
}

/** A track file, read and checked; a bad file is the user's mistake, said in one line. */
async function readTrack(path: string, speed: number | undefined): Promise<Track> {
  const { parseTrack } = await import("./tracks/parseTrack.js");
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new RigInputError(`--track ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  try {
    return parseTrack(text, speed !== undefined ? { speed } : {});
  } catch (error) {
    throw new RigInputError(`--track ${path}: ${(error as Error).message}`);
  }
}

/** What a local hub's credentials.json in `dir` says (nothing when there is none or it cannot be read). */
export async function readHubCredentials(
  dir: string,
): Promise<{ ca_cert?: string | null; product_uid?: string; token?: string }> {
  try {
    return JSON.parse(await readFile(join(dir, "credentials.json"), "utf8")) as {
      ca_cert?: string | null;
      product_uid?: string;
      token?: string;
    };
  } catch {
    return {};
  }
}

/** `--hub URL`: HTTPS to that hub, trusting its CA (from --hub-ca or credentials.json). */
async function hubNamed(named: NonNullable<RigNamedInputs["hub"]>): Promise<HubConnection> {
  const { parseHubUrl } = await import("./HttpsHubLink.js");
  try {
    parseHubUrl(named.url);
  } catch (error) {
    throw new RigInputError(`--hub: ${(error as Error).message}`);
  }
  // No local hub's credentials: --hub-ca and --product (or the host's hub.set product) say it.
  const credentials = await readHubCredentials(named.credentialsDir);
  const ca = named.ca ?? credentials.ca_cert ?? undefined;
  const product = named.product ?? credentials.product_uid;
  if (ca !== undefined) {
    try {
      await readFile(ca);
    } catch {
      throw new RigInputError(`--hub-ca ${ca}: cannot read the hub's CA certificate`);
    }
  }
  return { url: named.url, ...(ca ? { ca } : {}), ...(product ? { product } : {}) };
}
