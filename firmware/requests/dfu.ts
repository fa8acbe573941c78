import { encodeBase64 } from "../../core/base64.js";
import type { JsonObject } from "../../core/json.js";
import { md5Hex } from "../../core/md5.js";
import type { DfuTarget } from "../../protocol/messages.js";
import { HUB_CONFIG_KEY, hubSettings } from "../config/HubConfig.js";
import { storeRecord } from "../config/compactRecord.js";
import type { OutboardSettings } from "../dfu/DfuRecords.js";
import { OUTBOARD_CLASSES, type OutboardClass } from "../dfu/HostDfuLines.js";
import {
  argumentNotOneOf,
  argumentsIncompatible,
  cardDfuSecondsNeedOff,
  dfuModeRequired,
  dfuModeStarting,
  dfuNegative,
  dfuNoImage,
  dfuNoImageRoom,
  dfuPastEnd,
  dfuReadTooLong,
  dfuVvalueNotSwitch,
  notSupportedOnVariant,
  voltageVariableInvalid,
} from "../errors.js";
import { VoltageVariable } from "../power/VoltageVariable.js";
import type { RequestContext, RequestTable } from "./RequestTable.js";

/** Variants with firmware updates of the host (the LoRa module has none). */
const DFU_VARIANTS = ["cell", "cell-wifi", "wifi", "ntn"] as const;
/** Variants with outboard updates and a binary buffer for `dfu.get binary:true`. */
const OUTBOARD_VARIANTS = ["cell", "cell-wifi", "wifi"] as const;

const NAMES = ["user", "card"] as const;

/**
 * The most bytes one `dfu.get` reads: 8192, the vendor's documentation of the request and the
 * schema's binary sample (`"length": 8192`); hosts read page-sized chunks (the vendor's IAP
 * example reads one flash page a request).
 */
export const DFU_GET_MAX = 8192;

function targetOf(ctx: RequestContext): DfuTarget {
  const name = ctx.args.string("name");
  if (name === undefined || name === "") return "user";
  if (!(NAMES as readonly string[]).includes(name)) throw argumentNotOneOf(ctx.name, "name", name, NAMES);
  return name as DfuTarget;
}

/**
 * `dfu.status`: the state of the host's (`name:user`, default) or the module's (`card`) firmware
 * update, and its switches: `on`/`off` allow or stop downloads, `vvalue` allows them by supply
 * state, `stop` ends the update and deletes the image (`status` is the text the hub is told;
 * `err` ends it in error), `version` tells the hub the host's firmware version.
 */
async function dfuStatus(ctx: RequestContext): Promise<JsonObject> {
  const { args, module, name } = ctx;
  const target = targetOf(ctx);
  const on = args.optionalBool("on");
  const off = args.optionalBool("off");
  if (on && off) throw argumentsIncompatible(name, "on", "off");
  const vvalue = args.string("vvalue");
  const stop = args.bool("stop");
  const status = args.string("status");
  const err = args.string("err");
  const version = args.stringOrObject("version");
  if (vvalue !== undefined && vvalue !== "" && vvalue !== "-") {
    const parsed = VoltageVariable.parse(vvalue, "integer");
    if (!(parsed instanceof VoltageVariable))
      throw voltageVariableInvalid(name, "vvalue", vvalue, parsed.problem);
    if (parsed.entries.some((e) => e.value > 1)) throw dfuVvalueNotSwitch(vvalue);
  }
  if (version !== undefined) {
    // The host's version, for the hub: the same setting as hub.set version.
    storeRecord(module.notebox, HUB_CONFIG_KEY, { ...hubSettings(module), version });
  }
  if (on || off || vvalue !== undefined) {
    module.dfu.setSwitch(target, {
      ...(on ? { on } : {}),
      ...(off ? { off } : {}),
      ...(vvalue !== undefined ? { vvalue: vvalue === "" || vvalue === "-" ? null : vvalue } : {}),
    });
  }
  if (stop) {
    if (!module.images) throw dfuNoImageRoom(name);
    await module.dfu.stop(target, {
      ...(status !== undefined ? { status } : {}),
      ...(err !== undefined ? { err } : {}),
    });
  }
  return module.dfu.status(target);
}

/**
 * `dfu.get`: in DFU mode, bytes of the ready host image: `length` from `offset`, as base64
 * `payload`, or with `binary:true` into the binary buffer (`cobs`, `length`, `status` = MD5) for
 * `card.binary.get`. `length:0` (or none) only checks that DFU mode is active; 8192 bytes at most.
 */
async function dfuGet(ctx: RequestContext): Promise<JsonObject> {
  const { args, module } = ctx;
  const length = args.int("length");
  const offset = args.int("offset") ?? 0;
  const binary = args.bool("binary");
  const mode = module.dfu.dfuMode();
  if (mode === "off") throw dfuModeRequired();
  if (mode === "starting") throw dfuModeStarting();
  module.dfu.touchDfuMode();
  if (length !== undefined && length < 0) throw dfuNegative("length");
  if (offset < 0) throw dfuNegative("offset");
  // No length, or 0: "am I in DFU mode?" (note-python `isDFUModeActive` and the vendor's IAP
  // examples send a bare `dfu.get` and test only for an error).
  if (!length) return {};
  if (binary && !(OUTBOARD_VARIANTS as readonly string[]).includes(module.variant.name))
    throw notSupportedOnVariant(module.variant.radio);
  const record = module.dfu.record("user");
  if ((record.mode !== "ready" && record.mode !== "outboard-ready") || !record.image || !module.images)
    throw dfuNoImage(record.mode);
  if (offset >= record.image.length) throw dfuPastEnd(offset, record.image.length);
  if (length > DFU_GET_MAX) throw dfuReadTooLong(length, DFU_GET_MAX);
  const data = await module.dfu.readForHost(offset, Math.min(length, record.image.length - offset));
  // `status`, the MD5 of the bytes, also with a base64 payload: the vendor's IAP example checks
  // each chunk's MD5 against it (and gives up on the chunk when it is missing).
  if (!binary) return { payload: encodeBase64(data), status: md5Hex(data) };
  module.binary.fill(data);
  return { cobs: module.binary.cobsLength(), length: data.length, status: md5Hex(data) };
}

/**
 * `card.dfu`: outboard updates of the host. `name` the host's class (`-` clears it), `on`/`off`
 * (with `seconds`: off for that long), `stop`/`start` whether the module resets the host when it
 * starts, `mode` the pins (`altdfu`, or the AUX pins). Answers the class configured.
 */
function cardDfu(ctx: RequestContext): JsonObject {
  const { args, module, name } = ctx;
  const current: { -readonly [K in keyof OutboardSettings]: OutboardSettings[K] } = {
    ...module.dfu.outboardSettings(),
  };
  const cls = args.string("name");
  const on = args.optionalBool("on");
  const off = args.optionalBool("off");
  const seconds = args.int("seconds");
  const stop = args.bool("stop");
  const start = args.bool("start");
  const pins = args.string("mode");
  if (on && off) throw argumentsIncompatible(name, "on", "off");
  if (stop && start) throw argumentsIncompatible(name, "stop", "start");
  if (seconds !== undefined && !off) throw cardDfuSecondsNeedOff();
  const classes = [...Object.keys(OUTBOARD_CLASSES), "-"];
  if (cls !== undefined && !classes.includes(cls)) throw argumentNotOneOf(name, "name", cls, classes);
  const modes = ["altdfu", "aux", "off"];
  if (pins !== undefined && !modes.includes(pins)) throw argumentNotOneOf(name, "mode", pins, modes);
  if (cls === "-") {
    delete current.name;
    delete current.on;
    delete current.offUntil;
  } else if (cls !== undefined) current.name = cls as OutboardClass;
  if (on) {
    current.on = true;
    delete current.offUntil;
  }
  if (off) {
    if (seconds !== undefined && seconds > 0) current.offUntil = module.clock.now() + seconds * 1000;
    else {
      delete current.on;
      delete current.offUntil;
    }
  }
  if (stop) current.noReset = true;
  if (start) delete current.noReset;
  if (pins === "altdfu") current.altdfu = true;
  else if (pins !== undefined) delete current.altdfu;
  module.dfu.setOutboard(current);
  return current.name ? { name: current.name } : {};
}

/** `dfu.get`, `dfu.status`, `card.dfu`. */
export const dfuRequests: RequestTable = {
  // dfu.status.rsp requires `mode` and `on`: `on:false` is sent with `off:true`.
  "dfu.status": { handler: dfuStatus, variants: DFU_VARIANTS, keep: ["on"] },
  "dfu.get": { handler: dfuGet, variants: DFU_VARIANTS },
  "card.dfu": { handler: cardDfu, variants: OUTBOARD_VARIANTS },
};
