import { decodeBase64 } from "../../core/base64.js";
import {
  argumentNotOneOf,
  argumentOutOfRange,
  fixedNeedsLocation,
  geofenceNeedsCenter,
  locationNeedsGps,
  payloadNotBase64,
  triangulateCellNeedsRadio,
} from "../errors.js";
import { DEFAULT_TRACK_FILE } from "../sensors/LocationTracker.js";
import {
  SENSOR_KEYS,
  type Geofence,
  type LocationSettings,
  type TrackSettings,
} from "../sensors/SensorSettings.js";
import type { VariantName } from "../Variant.js";
import type { RequestContext, RequestTable } from "./RequestTable.js";
import {
  intSetting,
  latLon,
  periodVariable,
  queueFile,
  startStop,
  storeIfChanged,
  updated,
} from "./sensorArgs.js";
import type { JsonObject } from "../../core/json.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The location requests exist on every variant; tracking and triangulation not on LoRa. */
const NOT_LORA: readonly VariantName[] = ["cell", "cell-wifi", "wifi", "ntn"];
const LOCATION_MODES = ["", "off", "periodic", "continuous", "fixed", "-"];
const TRIANGULATE_MODE = /^(cell(,wifi)?|wifi(,cell)?|-)$/;

/**
 * `card.location*` and `card.triangulate`: the GPS schedule, the last location, `_track.qo`
 * tracking, and the triangulation scans the next hub session carries. What they drive lives in
 * firmware/sensors; docs/world.md says what is simulated and what is not.
 */
export const locationRequests: RequestTable = {
  "card.location": cardLocation,
  "card.location.mode": cardLocationMode,
  "card.location.track": { handler: cardLocationTrack, variants: NOT_LORA },
  "card.triangulate": { handler: cardTriangulate, variants: NOT_LORA },
};

/** The last location, its time and precision, and the state of the GPS. */
function cardLocation({ module }: RequestContext): JsonObject {
  const gnss = module.sensors.gnss;
  const fix = gnss.current();
  const fence = gnss.settings.fence;
  const distance = fence?.max !== undefined ? gnss.fenceDistance(fix) : undefined;
  return {
    status: gnss.status(),
    // card.location.rsp's enum is continuous, periodic, off: a fixed location is not the GPS's
    // mode, so fixed answers off (the fixed place itself comes as lat/lon).
    mode: gnss.mode === "fixed" ? "off" : gnss.mode,
    lat: fix?.lat,
    lon: fix?.lon,
    time: fix?.time,
    dop: fix?.dop,
    count: gnss.failures,
    max: distance === undefined ? undefined : Math.round(distance),
  };
}

function cardLocationMode({ name, args, module }: RequestContext): JsonObject {
  const gnss = module.sensors.gnss;
  const mode = args.string("mode");
  const seconds = intSetting(name, args, "seconds", 5);
  const vseconds = periodVariable(name, args, "vseconds");
  const threshold = intSetting(name, args, "threshold", 0);
  const place = latLon(name, args);
  const max = args.int("max");
  const minutes = intSetting(name, args, "minutes", 1);
  const erase = args.bool("delete");

  if (mode !== undefined && !LOCATION_MODES.includes(mode))
    throw argumentNotOneOf(name, "mode", mode, LOCATION_MODES);
  if ((mode === "periodic" || mode === "continuous") && !module.variant.gps)
    throw locationNeedsGps(mode, module.variant.radio);
  if (max !== undefined && max < -1)
    throw argumentOutOfRange(name, "max", "a radius in metres, or -1 to remove the geofence", max);

  const current = gnss.settings;
  const s: Mutable<LocationSettings> = { ...current };
  if (mode === "off" || mode === "-") s.mode = undefined;
  else if (mode === "periodic" || mode === "continuous" || mode === "fixed") s.mode = mode;
  s.seconds = updated(s.seconds, seconds);
  if (vseconds !== undefined) s.vseconds = vseconds ?? undefined;
  s.threshold = updated(s.threshold, threshold);

  if (erase) gnss.forget();
  const known = gnss.current();
  if (s.mode === "fixed") {
    const at = place ?? current.fixed ?? known;
    if (!at) throw fixedNeedsLocation();
    s.fixed = { lat: at.lat, lon: at.lon };
  } else {
    // Outside fixed mode, lat/lon/max/minutes describe a geofence; it is on once it has a radius.
    let fence: Mutable<Geofence> | undefined = current.fence ? { ...current.fence } : undefined;
    if (place) fence = { ...fence, lat: place.lat, lon: place.lon };
    if (max !== undefined && max <= 0) fence = undefined;
    else if (max !== undefined) {
      // The center defaults to the last known location.
      if (!fence) {
        if (!known) throw geofenceNeedsCenter();
        fence = { lat: known.lat, lon: known.lon };
      }
      fence.max = max;
    }
    if (fence && minutes !== undefined) fence.minutes = minutes ?? undefined;
    s.fence = fence;
  }
  // A new geofence alone leaves the GPS schedule running.
  const schedule = ({ fence: _fence, ...rest }: LocationSettings) => JSON.stringify(rest);
  const before = schedule(current);
  if (storeIfChanged(module.notebox, SENSOR_KEYS.location, s) && schedule(gnss.settings) !== before)
    gnss.reconfigure();

  const now = gnss.settings;
  const reply: JsonObject = {
    mode: gnss.mode,
    seconds: now.seconds,
    vseconds: now.vseconds,
    threshold: now.threshold,
    journey: module.sensors.tracker.journey,
  };
  if (now.mode === "fixed" && now.fixed) {
    reply["lat"] = now.fixed.lat;
    reply["lon"] = now.fixed.lon;
  } else if (now.fence?.max !== undefined) {
    reply["lat"] = now.fence.lat;
    reply["lon"] = now.fence.lon;
    reply["max"] = now.fence.max;
    reply["minutes"] = now.fence.minutes ?? 5;
  }
  return reply;
}

function cardLocationTrack({ name, args, module }: RequestContext): JsonObject {
  const { start, stop } = startStop(name, args);
  const heartbeat = args.optionalBool("heartbeat");
  const hours = args.int("hours");
  const sync = args.optionalBool("sync");
  const file = queueFile(name, args);
  const payload = args.string("payload");
  let bytes: Uint8Array | undefined;
  if (payload !== undefined && payload !== "") {
    bytes = decodeBase64(payload);
    if (!bytes) throw payloadNotBase64();
  }

  const tracker = module.sensors.tracker;
  const s: Mutable<TrackSettings> = { ...tracker.settings };
  if (start) s.on = true;
  if (stop) s.on = undefined;
  if (heartbeat !== undefined) s.heartbeat = heartbeat || undefined;
  if (hours !== undefined) s.hours = hours === 0 ? undefined : hours;
  if (sync !== undefined) s.sync = sync || undefined;
  if (file !== undefined) s.file = file === null || file === DEFAULT_TRACK_FILE ? undefined : file;
  if (storeIfChanged(module.notebox, SENSOR_KEYS.track, s)) tracker.reconfigure();
  if (bytes) tracker.attachPayload(bytes);

  const now = tracker.settings;
  const reply: JsonObject = { start: now.on, stop: !now.on, heartbeat: now.heartbeat, file: now.file };
  const minutes = tracker.heartbeatMinutes;
  if (minutes !== undefined) {
    if (minutes % 60 === 0) reply["hours"] = minutes / 60;
    else reply["minutes"] = minutes;
  } else if (now.on && module.sensors.gnss.mode === "periodic") {
    reply["seconds"] = module.sensors.gnss.periodSeconds;
  }
  reply["journey"] = tracker.journey;
  return reply;
}

function cardTriangulate({ name, args, module }: RequestContext): JsonObject {
  const mode = args.string("mode");
  const on = args.bool("on");
  const usb = args.bool("usb");
  const set = args.bool("set");
  const minutes = args.int("minutes");
  const text = args.string("text");
  const time = args.int("time");
  if (mode !== undefined && mode !== "" && !TRIANGULATE_MODE.test(mode))
    throw argumentNotOneOf(name, "mode", mode, ["cell", "wifi", "cell,wifi", "wifi,cell", "-"]);
  if (mode?.includes("cell") && !module.variant.cell) throw triangulateCellNeedsRadio(module.variant.radio);
  if (minutes !== undefined && minutes < -1)
    throw argumentOutOfRange(name, "minutes", "0 or more, or -1 to reset", minutes);
  if (time !== undefined && time < 0) throw argumentOutOfRange(name, "time", "epoch seconds", time);

  const triangulation = module.sensors.triangulation;
  const s = { ...triangulation.settings };
  if (mode === "-") s.mode = undefined;
  else if (mode) s.mode = mode;
  // `on` and `usb` take effect only with `set`.
  if (set) {
    s.on = on || undefined;
    s.usb = usb || undefined;
  }
  if (minutes !== undefined) s.minutes = minutes <= 0 ? undefined : minutes;
  storeIfChanged(module.notebox, SENSOR_KEYS.triangulate, s);
  if (text !== undefined) triangulation.setWifiScan(text, time ?? module.noteTime());

  const now = triangulation.settings;
  const lastMotion = module.world.lastMotionAt();
  const motionTime = lastMotion === undefined ? undefined : module.time();
  return {
    usb: now.usb,
    mode: now.mode,
    length: triangulation.length,
    on: now.on,
    time: triangulation.lastScan,
    motion:
      lastMotion === undefined || motionTime === undefined
        ? undefined
        : Math.max(0, motionTime - Math.round((module.clock.now() - lastMotion) / 1000)),
  };
}
