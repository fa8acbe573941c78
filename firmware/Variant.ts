/**
 * Hardware variants of the module. A module is built for one; it decides which requests and
 * arguments exist (per-variant rules of the spec) and what `card.version` reports.
 */
export type VariantName = "cell" | "cell-wifi" | "wifi" | "lora" | "ntn";

export interface Variant {
  readonly name: VariantName;
  /** How the module names its radio in errors ("request not supported for wifi"). */
  readonly radio: string;
  readonly sku: string;
  readonly orderingCode: string;
  readonly board: string;
  readonly cell: boolean;
  readonly wifi: boolean;
  readonly gps: boolean;
  readonly lora: boolean;
  readonly ntn: boolean;
  /** The extended-power module: no voltage-variable sync periods (`vinbound`/`voutbound`). */
  readonly extendedPower: boolean;
}

const base = { cell: false, wifi: false, gps: false, lora: false, ntn: false, extendedPower: false };

export const VARIANTS: Readonly<Record<VariantName, Variant>> = {
  cell: {
    ...base,
    name: "cell",
    radio: "cell",
    sku: "NOTE-MBNAN",
    orderingCode: "EA0WT1C0AXBN",
    board: "5.13",
    cell: true,
    gps: true,
  },
  "cell-wifi": {
    ...base,
    name: "cell-wifi",
    radio: "cell+wifi",
    sku: "NOTE-MBGLW",
    orderingCode: "EB0WT1C0AXBW",
    board: "5.13",
    cell: true,
    wifi: true,
    gps: true,
  },
  wifi: {
    ...base,
    name: "wifi",
    radio: "wifi",
    sku: "NOTE-WIFI",
    orderingCode: "EW0WT1C0AXBW",
    board: "5.13",
    wifi: true,
  },
  lora: {
    ...base,
    name: "lora",
    radio: "lora",
    sku: "NOTE-LWUS",
    orderingCode: "EL0WT1C0AXBL",
    board: "5.13",
    lora: true,
  },
  ntn: {
    ...base,
    name: "ntn",
    radio: "ntn",
    sku: "NOTE-NTN",
    orderingCode: "EN0WT1C0AXBN",
    board: "5.13",
    ntn: true,
    gps: true,
  },
};

export function variantNamed(name: string): Variant | undefined {
  return (VARIANTS as Record<string, Variant>)[name];
}
