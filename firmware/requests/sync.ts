import type { JsonObject } from "../../core/json.js";
import type { ModuleContext } from "../ModuleContext.js";
import { pendingOutbound, syncState, usageRecord } from "../sync/SyncState.js";
import { NOT_LORA } from "../Variant.js";
import type { RequestContext, RequestTable } from "./RequestTable.js";
import { usageModeInvalid } from "../errors.js";

/**
 * The requests of the sync engine (firmware/sync): start a sync, ask how it went, whether a
 * session is open, take a signal, and the traffic the sessions carried.
 */
export const syncRequests: RequestTable = {
  "hub.sync": { handler: hubSync, variants: NOT_LORA },
  "hub.sync.status": hubSyncStatus,
  "hub.status": hubStatus,
  "hub.signal": { handler: hubSignal, variants: NOT_LORA },
  "card.usage.get": cardUsageGet,
  "card.usage.test": cardUsageTest,
};

/**
 * Starts a sync now (`in`: download only, `out`: upload only). Ignored in `off` and `dfu` mode,
 * as on the real module; `minimum` syncs only this way.
 */
function hubSync({ args, module }: RequestContext): JsonObject {
  const only = { in: args.bool("in"), out: args.bool("out") };
  const allow = args.bool("allow");
  const mode = module.schedule.mode();
  if (mode === "off" || mode === "dfu") return {};
  // `allow` opens the connection boxes; without it a box holds the sync until it opens.
  if (allow) module.schedule.lift(["registration", "hub"]);
  if (module.schedule.boxed()) return {};
  module.sync.request({
    why: "explicit",
    ...(only.in && !only.out ? { in: true } : {}),
    ...(only.out && !only.in ? { out: true } : {}),
  });
  return {};
}

const secondsSince = (module: ModuleContext, at: number | undefined): number | undefined =>
  at === undefined ? undefined : Math.max(1, Math.round((module.clock.now() - at) / 1000));

function hubSyncStatus({ args, module }: RequestContext): JsonObject {
  const status = module.sync.status();
  const pending = pendingOutbound(module.notebox);
  const box = module.schedule.boxed();
  if (args.bool("sync") && pending > 0 && !status.running && !box)
    module.sync.request({ why: "explicit", out: true });
  const completed = syncState(module.notebox).completed;
  return {
    status: box && !status.running ? box.status : status.status,
    seconds: box?.seconds,
    mode: status.connected ? "{modem-on}" : "{modem-off}",
    requested: secondsSince(module, status.requestedAt),
    completed: secondsSince(module, status.completedAt),
    time: completed,
    alert: status.alert,
    sync: pending > 0 || module.time() === undefined,
  };
}

function hubStatus({ module }: RequestContext): JsonObject {
  const status = module.sync.status();
  if (status.connected) return { status: "connected (session open) {connected}", connected: true };
  if (status.alert && status.error) return { status: `${status.error} {disconnected}` };
  return { status: "not connected {disconnected}" };
}

/** The oldest signal the hub sent, taken off the queue (signals arrive in continuous mode). */
function hubSignal({ args, module }: RequestContext): JsonObject {
  args.int("seconds"); // how long to wait for one: a request never waits here (see docs/module.md)
  const signal = module.sync.takeSignal();
  return {
    ...(signal ? { body: signal.body } : {}),
    connected: module.sync.status().connected,
    signals: module.sync.signalsWaiting,
  };
}

const USAGE_MODES = { total: 0, "1hour": 1, "1day": 24, "30day": 720 } as const;

/**
 * Traffic the sync sessions carried, counted from the messages themselves: in total since the
 * counters started, or in the hour, day or 30 days `offset` periods back.
 */
function cardUsageGet({ args, module }: RequestContext): JsonObject {
  const mode = args.string("mode") ?? "total";
  const offset = Math.max(0, args.int("offset") ?? 0);
  if (!(mode in USAGE_MODES)) throw usageModeInvalid(mode);
  const now = module.noteTime();
  const record = usageRecord(module.notebox, now);
  const hours = USAGE_MODES[mode as keyof typeof USAGE_MODES];
  if (hours === 0) {
    const t = record.total;
    return {
      ...t,
      time: record.since,
      seconds: Math.max(0, now - record.since),
    };
  }
  const end = Math.floor(now / 3600) + 1 - offset * hours;
  const start = end - hours;
  const sum = { bytes_sent: 0, bytes_received: 0, notes_sent: 0, notes_received: 0 };
  for (const [hour, sent, received, notesSent, notesReceived] of record.hours) {
    if (hour! < start || hour! >= end) continue;
    sum.bytes_sent += sent!;
    sum.bytes_received += received!;
    sum.notes_sent += notesSent!;
    sum.notes_received += notesReceived!;
  }
  return { ...sum, time: start * 3600, seconds: hours * 3600 };
}

/**
 * How long a data plan lasts at the rate the sessions used so far: `megabytes` (default 1024)
 * over the bytes per day of the period the counters cover (`days`/`hours`: the period to judge by).
 */
function cardUsageTest({ args, module }: RequestContext): JsonObject {
  const megabytes = args.int("megabytes") ?? 1024;
  const days = args.int("days");
  const hours = args.int("hours");
  const now = module.noteTime();
  const record = usageRecord(module.notebox, now);
  const window = days !== undefined ? days * 86_400 : hours !== undefined ? hours * 3600 : undefined;
  let bytes = record.total.bytes_sent + record.total.bytes_received;
  let seconds = Math.max(1, now - record.since);
  if (window !== undefined) {
    const start = Math.floor((now - window) / 3600);
    bytes = record.hours
      .filter(([hour]) => hour! >= start)
      .reduce((n, [, sent, received]) => n + sent! + received!, 0);
    seconds = Math.max(1, window);
  }
  const perDay = Math.round((bytes * 86_400) / seconds);
  return {
    ...record.total,
    time: record.since,
    seconds,
    bytes_per_day: perDay,
    max: megabytes * 1024 * 1024,
    days: perDay > 0 ? Math.floor((megabytes * 1024 * 1024) / perDay) : undefined,
  };
}
