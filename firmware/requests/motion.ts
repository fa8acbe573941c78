import { argumentNotOneOf } from "../errors.js";
import { DEFAULT_MOTION_FILE } from "../sensors/Accelerometer.js";
import {
  SENSOR_KEYS,
  type MotionSettings,
  type MotionSyncSettings,
  type MotionTrackSettings,
} from "../sensors/SensorSettings.js";
import { variantsWith } from "../Variant.js";
import type { RequestContext, RequestTable } from "./RequestTable.js";
import { intSetting, queueFile, startStop, storeIfChanged, updated } from "./sensorArgs.js";
import type { JsonObject } from "../../core/json.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The LoRa module has no accelerometer. */
const WITH_ACCELEROMETER = variantsWith("accelerometer");
const SENSITIVITIES = ["-1", "0", "1", "2", "3", "4", "5"];

/** `card.motion*`: the accelerometer, motion capture in `_motion.qo` and motion-triggered syncs. */
export const motionRequests: RequestTable = {
  "card.motion": { handler: cardMotion, variants: WITH_ACCELEROMETER },
  "card.motion.mode": { handler: cardMotionMode, variants: WITH_ACCELEROMETER },
  "card.motion.sync": { handler: cardMotionSync, variants: WITH_ACCELEROMETER },
  "card.motion.track": { handler: cardMotionTrack, variants: WITH_ACCELEROMETER },
};

function cardMotion({ name, args, module }: RequestContext): JsonObject {
  const minutes = intSetting(name, args, "minutes", 1);
  return module.sensors.accelerometer.read(minutes ?? undefined);
}

function cardMotionMode({ name, args, module }: RequestContext): JsonObject {
  const { start, stop } = startStop(name, args);
  const seconds = intSetting(name, args, "seconds", 1);
  const sensitivity = args.int("sensitivity");
  const motion = intSetting(name, args, "motion", 0);
  if (sensitivity !== undefined && !SENSITIVITIES.includes(String(sensitivity)))
    throw argumentNotOneOf(name, "sensitivity", String(sensitivity), SENSITIVITIES);

  const accelerometer = module.sensors.accelerometer;
  const s: Mutable<MotionSettings> = { ...accelerometer.settings };
  if (start) {
    s.started = true;
    s.stopped = undefined;
  }
  if (stop) {
    s.stopped = true;
    s.started = undefined;
  }
  s.seconds = updated(s.seconds, seconds);
  s.motion = updated(s.motion, motion);
  // 0 leaves the sample rate as it is; -1 is the default rate.
  if (sensitivity !== undefined && sensitivity !== 0)
    s.sensitivity = sensitivity === -1 ? undefined : sensitivity;
  if (storeIfChanged(module.notebox, SENSOR_KEYS.motion, s)) accelerometer.reconfigure();

  const now = accelerometer.settings;
  return {
    start: now.started === true,
    stop: now.stopped === true,
    seconds: now.started ? accelerometer.bucketSeconds : now.seconds,
    motion: now.motion,
  };
}

function cardMotionSync({ name, args, module }: RequestContext): JsonObject {
  const { start, stop } = startStop(name, args);
  const minutes = intSetting(name, args, "minutes", 1);
  const count = intSetting(name, args, "count", 1);
  const threshold = intSetting(name, args, "threshold", 0);
  const s: Mutable<MotionSyncSettings> = {
    ...module.notebox.config<MotionSyncSettings>(SENSOR_KEYS.motionSync),
  };
  if (start) s.on = true;
  if (stop) s.on = undefined;
  s.minutes = updated(s.minutes, minutes);
  s.count = updated(s.count, count);
  s.threshold = updated(s.threshold, threshold);
  if (storeIfChanged(module.notebox, SENSOR_KEYS.motionSync, s)) module.sensors.accelerometer.reconfigure();
  return {};
}

function cardMotionTrack({ name, args, module }: RequestContext): JsonObject {
  const { start, stop } = startStop(name, args);
  const minutes = intSetting(name, args, "minutes", 1);
  const count = intSetting(name, args, "count", 1);
  const threshold = intSetting(name, args, "threshold", 0);
  const file = queueFile(name, args);
  const now = args.optionalBool("now");
  const s: Mutable<MotionTrackSettings> = {
    ...module.notebox.config<MotionTrackSettings>(SENSOR_KEYS.motionTrack),
  };
  if (start) s.on = true;
  if (stop) s.on = undefined;
  s.minutes = updated(s.minutes, minutes);
  s.count = updated(s.count, count);
  s.threshold = updated(s.threshold, threshold);
  if (file !== undefined) s.file = file === null || file === DEFAULT_MOTION_FILE ? undefined : file;
  if (now !== undefined) s.now = now || undefined;
  if (storeIfChanged(module.notebox, SENSOR_KEYS.motionTrack, s)) module.sensors.accelerometer.reconfigure();
  return {};
}
