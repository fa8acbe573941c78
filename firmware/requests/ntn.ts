import type { JsonObject } from "../../core/json.js";
import { argumentsIncompatible, noNtnModule } from "../errors.js";
import type { ModuleContext } from "../ModuleContext.js";
import type { Notebox } from "../storage/Notebox.js";
import type { RequestContext, RequestTable } from "./RequestTable.js";

/*
 * `ntn.*`: the satellite (NTN) requests (ntn.gps/ntn.reset/ntn.status req and rsp schemas of the
 * public notecard-schema). A cellular or WiFi module pairs with a Starnote wired to it
 * (`--sku cell+starnote`); the Notecard for Skylo has its satellite radio built in.
 */

/** Notebox config key of the satellite settings (`NtnSettings`). */
export const NTN_KEY = "ntn";

interface NtnSettings {
  /** `ntn.gps on:true`: the module gives the satellite radio the location it knows. */
  readonly gps?: boolean;
}

/**
 * The modules (by the Notebox each boot opens) whose host cleared the pairing with `ntn.reset`:
 * until its next boot, when it finds the wired Starnote again, such a module answers as if none
 * were there. Kept in RAM: the pairing itself survives `card.restore`; only this clears it.
 */
const unpaired = new WeakSet<Notebox>();

function settings(module: ModuleContext): NtnSettings {
  return module.notebox.config<NtnSettings>(NTN_KEY) ?? {};
}

/** Whether a Starnote is paired now: wired to the module and not unpaired since this boot. */
export function starnotePaired(module: ModuleContext): boolean {
  return module.variant.starnote && !unpaired.has(module.notebox);
}

/** `ntn.status` (CELL, CELL+WIFI, WIFI): the paired Starnote's state, in `{tags}` as the samples. */
function ntnStatus({ module }: RequestContext): JsonObject {
  if (!starnotePaired(module)) throw noNtnModule();
  const { gps } = settings(module);
  // The Starnote acquires a location itself unless told to use the module's (ntn.gps on:true).
  const unknownLocation = gps === true && module.sensors.currentFix() === undefined;
  return { status: `{ntn-idle}${unknownLocation ? "{ntn-unknown-location}" : ""}` };
}

/** `ntn.gps`: whether the module supplies its location to the satellite radio (default: not). */
function ntnGps({ args, module }: RequestContext): JsonObject {
  const on = args.bool("on");
  const off = args.bool("off");
  if (on && off) throw argumentsIncompatible("ntn.gps", "on", "off");
  const current = settings(module);
  if (on || off) module.notebox.setConfig(NTN_KEY, { ...current, gps: on });
  return on || (!off && current.gps === true) ? { on: true } : { off: true };
}

/** `ntn.reset`: forgets the paired Starnote, so sessions go over cellular or WiFi again. */
function ntnReset({ module }: RequestContext): JsonObject {
  unpaired.add(module.notebox);
  return {};
}

const PAIRING: ["cell", "cell-wifi", "wifi"] = ["cell", "cell-wifi", "wifi"];

export const ntnRequests: RequestTable = {
  // The schemas: ntn.status on CELL, CELL+WIFI, WIFI; ntn.gps and ntn.reset on Skylo too.
  "ntn.status": { variants: PAIRING, handler: ntnStatus },
  "ntn.gps": { variants: [...PAIRING, "ntn"], handler: ntnGps },
  "ntn.reset": { variants: [...PAIRING, "ntn"], handler: ntnReset },
};
