/**
 * Module firmware versions as the device list filters them: the numeric part of a version,
 * `major.minor.patch.build`, so that `8`, `8.1` and `8.1.3.17004` all match firmware 8.1.3.17004.
 */

const NUMERIC = /\d+(?:\.\d+)*/;

/** Versions worked out, by description: a fleet's devices report a few, at every device write. */
const known = new Map<string, string | null>();
const KNOWN_MAX = 1000;

/** The numeric version of a firmware description (JSON text or a plain version string). */
export function numericFirmwareVersion(firmware: string | null | undefined): string | null {
  if (!firmware) return null;
  const held = known.get(firmware);
  if (held !== undefined) return held;
  const version = numericVersionOf(firmware);
  if (known.size >= KNOWN_MAX) known.clear();
  known.set(firmware, version);
  return version;
}

function numericVersionOf(firmware: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(firmware);
  } catch {
    parsed = undefined;
  }
  if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
    const v = parsed as Record<string, unknown>;
    if (typeof v.ver_major === "number") {
      const parts = [v.ver_major, v.ver_minor, v.ver_patch, v.ver_build];
      const numeric: number[] = [];
      for (const part of parts) {
        if (typeof part !== "number" || !Number.isInteger(part) || part < 0) break;
        numeric.push(part);
      }
      return numeric.join(".");
    }
    if (typeof v.version === "string") return v.version.match(NUMERIC)?.[0] ?? null;
    return null;
  }
  return firmware.match(NUMERIC)?.[0] ?? null;
}

/** The numeric part of a filter value (`notecard-8.1` → `8.1`), or null when it has none. */
export function firmwareFilterValue(text: string): string | null {
  return text.match(NUMERIC)?.[0] ?? null;
}
