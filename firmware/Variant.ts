/**
 * Hardware variants of the module. A module is built for one; it decides which requests and
 * arguments exist (per-variant rules of the spec) and what `card.version` reports.
 *
 * Identity values (SKU, ordering code, board, firmware target) are taken from replies of real
 * modules where one was published (docs/module.md lists the sources); where none was, the field
 * is left out rather than invented.
 */
export type VariantName = "cell" | "cell-wifi" | "wifi" | "lora" | "ntn";

export interface Variant {
  readonly name: VariantName;
  /** How the module names its radio in errors ("request not supported for wifi"). */
  readonly radio: string;
  readonly sku: string;
  /** Ordering code as `card.version` reports it; absent when no real value is known. */
  readonly orderingCode?: string;
  /** Board revision as `card.version` reports it; absent when no real value is known. */
  readonly board?: string;
  /** Firmware target (`card.version` body.target): the module's main processor family. */
  readonly target: string;
  readonly cell: boolean;
  readonly wifi: boolean;
  readonly gps: boolean;
  readonly lora: boolean;
  readonly ntn: boolean;
  /**
   * An on-board accelerometer (`card.motion*`, motion-gated GPS sampling): every variant but LoRa,
   * as the public request schemas list them. A GPS receiver is `gps`.
   */
  readonly accelerometer: boolean;
  /**
   * The extended-power module (Notecard XP): voltage thresholds and voltage-variable sync
   * periods (`card.voltage mode`, `hub.set vinbound/voutbound`) are not available.
   */
  readonly extendedPower: boolean;
  /**
   * A satellite module (Starnote) wired to this one (`+starnote`): `ntn.*` answer with it, the
   * `ntn` transports use it, and templates need a port and the compact format, as on LoRa.
   */
  readonly starnote: boolean;
  /** Every real SKU of this family (`--sku` accepts any of them). */
  readonly skus: readonly string[];
}

const base = {
  cell: false,
  wifi: false,
  gps: false,
  lora: false,
  ntn: false,
  accelerometer: true,
  extendedPower: false,
  starnote: false,
};

export const VARIANTS: Readonly<Record<VariantName, Variant>> = {
  // Reply of a NOTE-MBNAN on firmware 9.3.1 (reference/notecard-behavior.md §4.6).
  cell: {
    ...base,
    name: "cell",
    radio: "cell",
    sku: "NOTE-MBNAN",
    orderingCode: "EA0WT1C0AXBN",
    board: "5.13",
    target: "u5",
    cell: true,
    gps: true,
    skus: ["NOTE-MBNAN", "NOTE-MBGLN", "NOTE-NBNAN", "NOTE-NBGLN", "NOTE-WBNAN", "NOTE-WBEXN"],
  },
  // Reply of a NOTE-WBNAW published on the vendor forum (thread 2387).
  "cell-wifi": {
    ...base,
    name: "cell-wifi",
    radio: "cell+wifi",
    sku: "NOTE-WBNAW",
    orderingCode: "FA0YT1N0ACAM",
    board: "5.13",
    target: "u5",
    cell: true,
    wifi: true,
    gps: true,
    skus: ["NOTE-WBNAW", "NOTE-WBGLW", "NOTE-WBEXW", "NOTE-MBNAW", "NOTE-MBGLW", "NOTE-NBNAW", "NOTE-NBGLW"],
  },
  // Reply of a NOTE-ESP (WiFi v2, ESP32-S3) published in a public project README.
  wifi: {
    ...base,
    name: "wifi",
    radio: "wifi",
    sku: "NOTE-ESP",
    orderingCode: "WZ0XV1N0ZZAV",
    board: "4.0",
    target: "s3",
    wifi: true,
    skus: ["NOTE-ESP", "NOTE-WIFI"],
  },
  // No published card.version reply: ordering code and board are left out.
  lora: {
    ...base,
    name: "lora",
    radio: "lora",
    sku: "NOTE-LWUS",
    target: "wl",
    lora: true,
    accelerometer: false,
    skus: ["NOTE-LWUS", "NOTE-LWEU"],
  },
  // Notecard for Skylo: cellular, WiFi and NTN satellite with GNSS; no published reply.
  ntn: {
    ...base,
    name: "ntn",
    radio: "ntn",
    sku: "NOTE-NBGLWX",
    target: "u5",
    cell: true,
    wifi: true,
    gps: true,
    ntn: true,
    skus: ["NOTE-NBGLWX"],
  },
};

/** Names of the variants that have `feature` (for request tables' `variants`). */
export function variantsWith(
  feature: "gps" | "accelerometer" | "cell" | "wifi" | "lora" | "ntn",
): VariantName[] {
  return Object.values(VARIANTS)
    .filter((v) => v[feature])
    .map((v) => v.name);
}

export function variantNamed(name: string): Variant | undefined {
  return Object.hasOwn(VARIANTS, name) ? VARIANTS[name as VariantName] : undefined;
}

/** The variant of a real SKU, reporting that SKU (and no ordering code unless it is known). */
export function variantForSku(sku: string): Variant | undefined {
  const wanted = sku.toUpperCase();
  for (const variant of Object.values(VARIANTS)) {
    if (!variant.skus.includes(wanted)) continue;
    if (wanted === variant.sku) return variant;
    const { orderingCode: _code, ...rest } = variant;
    return { ...rest, sku: wanted };
  }
  return undefined;
}

/** The same hardware as the extended-power (XP) module. */
export function extendedPowerVariant(variant: Variant): Variant {
  return { ...variant, extendedPower: true };
}

/**
 * A variant from a command-line style spec: a variant name (`cell-wifi`) or a SKU
 * (`NOTE-WBNAN`), optionally followed by `+xp` for the extended-power module and `+starnote`
 * for a satellite module wired to it (in either order).
 */
export function resolveVariant(spec: string): Variant | undefined {
  const [core = "", ...extras] = spec.split("+");
  let variant = variantNamed(core.toLowerCase()) ?? variantForSku(core);
  for (const extra of extras) {
    if (!variant) return undefined;
    const kind = extra.toLowerCase();
    if (kind === "xp") variant = extendedPowerVariant(variant);
    else if (kind === "starnote") variant = { ...variant, starnote: true };
    else return undefined;
  }
  return variant;
}

/** Every variant but LoRa (requests LoRa modules do not have). */
export const NOT_LORA: readonly VariantName[] = ["cell", "cell-wifi", "wifi", "ntn"];

/** A variant spec that names no variant: the error says which exist. */
export function unknownVariant(spec: unknown): Error {
  return new Error(`unknown module variant ${String(spec)}; one of ${Object.keys(VARIANTS).join(", ")}`);
}
