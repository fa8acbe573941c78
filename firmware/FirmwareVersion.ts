import type { JsonObject } from "../core/json.js";
import type { Notebox } from "./storage/Notebox.js";
import type { Variant } from "./Variant.js";

/**
 * The firmware this simulator answers as: the API it implements is the 9.x contract, reported
 * with the build of a real 9.3.1 reply (reference/notecard-behavior.md §4.6).
 */
export const FIRMWARE = {
  major: 9,
  minor: 3,
  patch: 1,
  build: 17434,
  built: "Oct 16 2025 14:29:26",
} as const;

export type FirmwareRelease = {
  -readonly [K in keyof typeof FIRMWARE]: (typeof FIRMWARE)[K] extends number ? number : string;
};

/** `x.y.z` of a release. */
export function releaseNumbers(release: FirmwareRelease = FIRMWARE): string {
  return `${release.major}.${release.minor}.${release.patch}`;
}

/** The `body` of `card.version`, as hubs record it (`firmware_module`). */
export function firmwareBody(
  variant: Pick<Variant, "target">,
  release: FirmwareRelease = FIRMWARE,
): JsonObject {
  return {
    org: "Blues Wireless",
    product: "Notecard",
    target: variant.target,
    version: `notecard-${variant.target}-${releaseNumbers(release)}`,
    ver_major: release.major,
    ver_minor: release.minor,
    ver_patch: release.patch,
    ver_build: release.build,
    built: release.built,
  };
}

/**
 * Configuration record of the release a firmware update installed (`FirmwareRelease`); absent, the
 * module runs the release it was built as (`FIRMWARE`). A factory reset keeps it: it describes
 * the code in the module's program flash, not its file system.
 */
export const INSTALLED_FIRMWARE_KEY = "firmware.installed";

/** The release the module runs: the one a firmware update installed, else `FIRMWARE`. */
export function installedRelease(notebox: Notebox): FirmwareRelease {
  return notebox.config<FirmwareRelease>(INSTALLED_FIRMWARE_KEY) ?? FIRMWARE;
}

/** `card.version`'s `version`: `notecard-x.y.z.build`. */
export function releaseName(release: FirmwareRelease = FIRMWARE): string {
  return `notecard-${releaseNumbers(release)}.${release.build}`;
}
