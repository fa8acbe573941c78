import type { PowerLossMode } from "../firmware/storage/flash/PowerLossFlashFs.js";
import type { JsonObject } from "../core/json.js";
import type { WorldChange } from "../firmware/world/worldChanges.js";

/**
 * A scripted change to a module's world, as recorded in captures (`kind: "world"`) so that a
 * replay applies it at the same moment.
 */
export type WorldAction =
  /** A note arrives from the hub into an inbound queue (`.qi`, `.qis`) or a database (`.db`, `.dbs`). */
  | {
      readonly action: "inboundNote";
      readonly file: string;
      readonly id?: string;
      readonly body?: JsonObject;
      /** Base64. */
      readonly payload?: string;
    }
  /**
   * The hub delivers environment variables: each scope given replaces the hub's values of that
   * scope (device, fleet, project); scopes not given are kept.
   */
  | {
      readonly action: "env";
      readonly device?: Readonly<Record<string, string>>;
      readonly fleet?: Readonly<Record<string, string>>;
      readonly project?: Readonly<Record<string, string>>;
    }
  /**
   * The physical world changes (firmware/world/World.ts): `op` is the World method, `args` its
   * arguments as JSON (a track as its points, each with its time from the start).
   */
  | { readonly action: "physical"; readonly op: WorldChange; readonly args: readonly unknown[] }
  /** The module's supply changes. */
  | { readonly action: "supply"; readonly volts?: number; readonly usb?: boolean }
  /** Coverage is lost or comes back (`forMs`: for that long). */
  | { readonly action: "radio"; readonly online: boolean; readonly forMs?: number }
  /** The module loses power and boots again on what its flash kept. */
  | { readonly action: "powerCycle" }
  /**
   * The power fails now (on the power-loss flash): whatever was not on the medium is lost as
   * `mode` says; after `offMs` the module boots and recovers.
   */
  | { readonly action: "powerLoss"; readonly mode?: PowerLossMode; readonly offMs?: number }
  /** The power will fail at the `step`-th flash write from now: in the middle of a request. */
  | {
      readonly action: "powerLossAt";
      readonly step: number;
      readonly mode?: PowerLossMode;
      readonly offMs?: number;
    };
