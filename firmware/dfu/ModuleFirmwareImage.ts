import type { JsonObject } from "../../core/json.js";
import { SeededRandom } from "../../core/SeededRandom.js";
import { firmwareBody, type FirmwareRelease } from "../FirmwareVersion.js";

/**
 * A simulated module firmware image (docs/dfu.md): the marker `firmware::info:`, the `card.version`
 * body of the release it installs as JSON, a NUL, then filler bytes standing in for the code (a
 * seeded pseudo-random stream, so that images of one size differ and compress like code).
 *
 *   firmware::info:{"org":"Blues Wireless","product":"Notecard","target":"u5",
 *     "version":"notecard-u5-9.4.0","ver_major":9,"ver_minor":4,"ver_patch":0,
 *     "ver_build":17500,"built":"Jan 15 2026 10:00:00"}\0<filler>
 *
 * The hub reads the same description from any uploaded image (its version, target, built ...); the
 * module installs an image only when the description parses, names the Notecard product and the
 * module's own target, and carries whole version numbers.
 */
export const MODULE_IMAGE_MARKER = "firmware::info:";

/** How much of an image's start holds its description. */
export const MODULE_IMAGE_HEADER_BYTES = 4096;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface ModuleImageOptions {
  readonly target: string;
  readonly release: FirmwareRelease;
  /** Total size in bytes (at least the header; default 256 KiB). */
  readonly size?: number;
  /** Seeds the filler (default: the version). */
  readonly seed?: string | number;
  /** Fields that replace the description's (to build images a module refuses). */
  readonly override?: JsonObject;
}

/** Builds a module firmware image that installs `release` on modules of `target`. */
export function moduleFirmwareImage(options: ModuleImageOptions): Uint8Array {
  const body = {
    ...firmwareBody({ target: options.target }, options.release),
    ...options.override,
  };
  const header = encoder.encode(`${MODULE_IMAGE_MARKER}${JSON.stringify(body)}\u0000`);
  const size = Math.max(header.length, options.size ?? 256 * 1024);
  const image = new Uint8Array(size);
  image.set(header);
  const random = new SeededRandom(options.seed ?? `${String(body["version"])}/${size}`);
  for (let i = header.length; i < size; i += 4) {
    const word = random.nextUint32();
    for (let b = 0; b < 4 && i + b < size; b++) image[i + b] = (word >>> (8 * b)) & 0xff;
  }
  return image;
}

/** Why an image cannot be installed on a module of `target`, or the release it installs. */
export function moduleImageRelease(
  header: Uint8Array,
  target: string,
): { release: FirmwareRelease } | { problem: string } {
  const text = decoder.decode(header.subarray(0, MODULE_IMAGE_HEADER_BYTES));
  if (!text.startsWith(MODULE_IMAGE_MARKER)) return { problem: "it is not a module firmware image" };
  const end = text.indexOf("\u0000");
  if (end < 0) return { problem: "its description is not terminated" };
  let body: unknown;
  try {
    body = JSON.parse(text.slice(MODULE_IMAGE_MARKER.length, end));
  } catch {
    return { problem: "its description is not JSON" };
  }
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return { problem: "its description is not an object" };
  const b = body as Record<string, unknown>;
  if (b["product"] !== "Notecard")
    return { problem: `it is firmware for ${String(b["product"])}, not a Notecard` };
  if (b["target"] !== target)
    return { problem: `it is built for target ${String(b["target"])}, not ${target}` };
  const numbers = ["ver_major", "ver_minor", "ver_patch", "ver_build"].map((k) => b[k]);
  if (!numbers.every((n) => typeof n === "number" && Number.isInteger(n) && n >= 0))
    return { problem: "its version numbers are missing" };
  const [major, minor, patch, build] = numbers as number[];
  if (major! < 1) return { problem: `version ${major}.${minor}.${patch} is not a release` };
  return {
    release: {
      major: major!,
      minor: minor!,
      patch: patch!,
      build: build!,
      built: typeof b["built"] === "string" ? b["built"] : "",
    },
  };
}
