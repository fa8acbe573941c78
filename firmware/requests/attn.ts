import { Attn, ATTN_MONITORS, WATCHDOG_MIN_SECONDS, type AttnMonitor } from "../attn/Attn.js";
import { decodeBase64 } from "../../core/base64.js";
import {
  argumentNotSupportedOnVariant,
  attnBadFile,
  attnBadPayload,
  attnFilesRequired,
  attnSleepSeconds,
  attnUnknownMode,
  attnWatchdogSeconds,
} from "../errors.js";
import type { ModuleContext } from "../ModuleContext.js";
import type { RequestContext, RequestTable } from "./RequestTable.js";
import type { JsonObject } from "../../core/json.js";

const ACTIONS = ["arm", "rearm", "disarm", "sleep", "watchdog"] as const;
type Action = (typeof ACTIONS)[number];

/** Keywords the LoRa module has (the rest need a cellular/WiFi radio, GPS or an accelerometer). */
const LORA_KEYWORDS = new Set(["arm", "disarm", "files", "env", "usb", "auxgpio", "-all"]);

/** Notefile types ATTN can watch. */
const WATCHABLE = /^[^,]+\.(qo|qos|qi|qis|db|dbs|dbx)$/;

interface ParsedMode {
  actions: Set<Action>;
  enable: AttnMonitor[];
  disable: AttnMonitor[];
  disableAll: boolean;
  stopWatchdog: boolean;
}

function parseMode(mode: string, module: ModuleContext): ParsedMode {
  const parsed: ParsedMode = {
    actions: new Set(),
    enable: [],
    disable: [],
    disableAll: false,
    stopWatchdog: false,
  };
  for (const raw of mode.split(",")) {
    const word = raw.trim();
    if (word === "") continue;
    const bare = word.startsWith("-") ? word.slice(1) : word;
    if (module.variant.lora && !LORA_KEYWORDS.has(word) && !LORA_KEYWORDS.has(bare))
      throw argumentNotSupportedOnVariant(`card.attn mode ${word}`, module.variant.radio);
    if (word === "-all") parsed.disableAll = true;
    else if (word === "-watchdog") parsed.stopWatchdog = true;
    else if ((ACTIONS as readonly string[]).includes(word)) parsed.actions.add(word as Action);
    else if ((ATTN_MONITORS as readonly string[]).includes(bare))
      (word.startsWith("-") ? parsed.disable : parsed.enable).push(bare as AttnMonitor);
    else throw attnUnknownMode(word);
  }
  return parsed;
}

/**
 * `card.attn`: configures the ATTN pin (arm/disarm/rearm, monitors, watchdog, sleep with a
 * payload) and reports its state: `files` lists what fired it, `set` is present while it is HIGH.
 */
function cardAttn({ module, args }: RequestContext): JsonObject {
  const attn = module.attn;
  const mode = parseMode(args.string("mode") ?? "", module);
  const files = args.stringArray("files");
  const seconds = args.int("seconds");
  const payload = args.string("payload");
  const start = args.bool("start");
  const verify = args.bool("verify");
  const on = args.bool("on");
  const off = args.bool("off");

  // Validate everything before changing anything.
  if (mode.enable.includes("files") && !files && attn.files.length === 0) throw attnFilesRequired();
  for (const name of files ?? []) if (!WATCHABLE.test(name)) throw attnBadFile(name);
  if (mode.actions.has("watchdog") && (seconds === undefined || seconds < WATCHDOG_MIN_SECONDS))
    throw attnWatchdogSeconds(WATCHDOG_MIN_SECONDS);
  if (mode.actions.has("sleep") && seconds === undefined) throw attnSleepSeconds();
  if (payload !== undefined && payload !== "" && decodeBase64(payload) === undefined) throw attnBadPayload();

  if (off) {
    attn.setOff(true);
    module.notebox.setConfig(Attn.OFF_CONFIG_KEY, true);
  } else if (on) {
    attn.setOff(false);
    module.notebox.setConfig(Attn.OFF_CONFIG_KEY, undefined);
  }
  if (mode.disableAll) attn.disableAll();
  if (mode.stopWatchdog) attn.watchdog(0);
  for (const m of mode.disable) {
    attn.disable(m);
    if (m === "files") attn.watchFiles([], module.notebox);
  }
  if (files) attn.watchFiles(files, module.notebox);
  for (const m of mode.enable) attn.enable(m);

  const timeout = seconds !== undefined && seconds > 0 ? seconds : 0;
  if (mode.actions.has("disarm")) attn.disarm();
  if (mode.actions.has("watchdog")) attn.watchdog(seconds ?? 0);
  if (mode.actions.has("sleep")) {
    attn.sleep(timeout, payload || undefined);
  } else if (mode.actions.has("arm")) {
    attn.arm(timeout);
  } else if (mode.actions.has("rearm")) {
    attn.rearm(timeout);
  }

  const reply: JsonObject = {};
  if (verify) {
    const words = [...(attn.armed ? ["arm"] : []), ...attn.monitors];
    if (attn.watchdogSeconds > 0) words.push("watchdog");
    reply["mode"] = words.join(",");
    reply["files"] = [...attn.files];
    reply["seconds"] = attn.watchdogSeconds > 0 ? attn.watchdogSeconds : attn.seconds;
  } else {
    reply["files"] = [...attn.events];
  }
  if (start) {
    const kept = attn.takePayload();
    if (kept) reply["payload"] = kept;
    // The module's time now, not when the payload was stored: note-c's wake path
    // (NotePayloadRetrieveAfterSleep) sets the host's clock from it, payload or not.
    const now = module.time();
    if (now !== undefined) reply["time"] = now;
  }
  if (attn.off) reply["off"] = true;
  // `set` shows the level the host will see: a sleep's LOW comes just after this reply.
  if (attn.high && !attn.sleeping) reply["set"] = true;
  return reply;
}

/** `card.attn`: the ATTN pin. */
export const attnRequests: RequestTable = {
  "card.attn": cardAttn,
};
