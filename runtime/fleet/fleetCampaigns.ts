import type { Clock, TimerHandle } from "../../core/Clock.js";
import type { HubApi } from "../HubApi.js";
import { countError, type FleetCounts } from "./FleetStats.js";
import { unitFor } from "./fleetIdentity.js";
import type { FleetSeat } from "./fleetIdentity.js";
import {
  durationMs,
  type DfuCampaign,
  type EnvironmentChange,
  type GroupLoad,
  type Workload,
} from "./workload.js";
import { hashSeed } from "./bodies.js";

/** A module a campaign reaches: its place, its DeviceUID and what its group does. */
export interface CampaignTarget {
  readonly place: number;
  readonly deviceUid: string;
  readonly load: GroupLoad;
}

/** Whether a workload does anything on the hub side (environment changes, a firmware campaign). */
export function hasCampaigns(workload: Workload): boolean {
  return workload.groups.some((g) => (g.environment?.length ?? 0) > 0 || g.dfu !== undefined);
}

/** The workload without its hub side: what the workers run when the thread that starts them does that part. */
export function withoutCampaigns(workload: Workload): Workload {
  return {
    ...workload,
    groups: workload.groups.map((group) => {
      const { environment, dfu, ...rest } = group;
      void environment;
      void dfu;
      return rest;
    }),
  };
}

/** The campaign targets of a workload's seats. */
export function campaignTargets(workload: Workload, seats: readonly FleetSeat[]): CampaignTarget[] {
  return seats.map((seat) => ({
    place: seat.place,
    deviceUid: seat.deviceUid,
    load: workload.groups[seat.group]!,
  }));
}

/** Devices per Perform DFU Action request (its query names them). */
const DFU_BATCH = 100;

/**
 * What a workload does on the hub side, through the hub's REST API as its owner would: each
 * group's environment changes (the project's variables, or each device's) and its firmware
 * campaign (a host image uploaded, an update asked for a share of the group), at their times.
 * Returns a stop for the changes not yet due.
 */
export function fleetCampaigns(
  hub: HubApi,
  clock: Clock,
  members: readonly CampaignTarget[],
  counts: FleetCounts,
): { stop(): void; settled(): Promise<void> } {
  const timers: TimerHandle[] = [];
  const pending = new Set<Promise<void>>();
  const failed = (error: unknown) => {
    countError(counts, "hub-api");
    // The run goes on; the summary counts the failure.
    void error;
  };
  // Each change is real work on the hub (its API in process): the fleet waits for it between steps.
  const track = (work: () => Promise<void>) => () => {
    const running = work().catch(failed);
    pending.add(running);
    void running.finally(() => pending.delete(running));
  };
  const byGroup = new Map<string, CampaignTarget[]>();
  for (const m of members) {
    const list = byGroup.get(m.load.name) ?? [];
    list.push(m);
    byGroup.set(m.load.name, list);
  }
  for (const [name, group] of byGroup) {
    const load = group[0]!.load;
    for (const change of load.environment ?? []) {
      timers.push(
        clock.setTimer(
          track(() => setEnvironment(hub, change, group)),
          durationMs(change.at),
        ),
      );
    }
    const dfu = load.dfu;
    if (dfu)
      timers.push(
        clock.setTimer(() => void campaign(hub, name, dfu, group).catch(failed), durationMs(dfu.at)),
      );
  }
  return {
    stop() {
      for (const timer of timers.splice(0)) clock.clearTimer(timer);
    },
    async settled() {
      while (pending.size > 0) await Promise.all(pending);
    },
  };
}

async function setEnvironment(hub: HubApi, change: EnvironmentChange, group: readonly CampaignTarget[]) {
  if ((change.scope ?? "project") === "project") {
    await hub.setProjectEnvironmentVariables({ ...change.vars });
    return;
  }
  for (const member of group) {
    await provisioned(hub, member.deviceUid);
    await hub.setDeviceEnvironmentVariables(member.deviceUid, { ...change.vars });
  }
}

/** A device the hub knows (one that never synced yet is provisioned first). */
async function provisioned(hub: HubApi, deviceUid: string): Promise<void> {
  const known = await hub.request("GET", `/v1/projects/${hub.projectUid}/devices/${deviceUid}`);
  if (known.status === 404) await hub.provisionDevice(deviceUid);
}

/** A host image of `bytes` (seeded, with its version embedded), and an update for a share of the group. */
async function campaign(hub: HubApi, groupName: string, dfu: DfuCampaign, group: readonly CampaignTarget[]) {
  const filename = `${groupName}-${dfu.version}.bin`;
  const seed = hashSeed(filename);
  const image = new Uint8Array(dfu.bytes);
  for (let i = 0; i < image.length; i++) image[i] = (Math.imul(seed ^ i, 0x9e3779b1) >>> 24) & 0xff;
  const info = Buffer.from(`firmware::info:${JSON.stringify({ version: dfu.version })}\u0000`, "latin1");
  image.set(info.subarray(0, Math.min(info.length, image.length)));
  // The hub names the image it keeps (the name uploaded, perhaps with a suffix).
  const stored = await hub.uploadFirmware("host", filename, image, { version: dfu.version });
  const share = dfu.share ?? 1;
  const chosen = group.filter((m) => unitFor(seed, m.place, "dfu") < share).map((m) => m.deviceUid);
  for (let i = 0; i < chosen.length; i += DFU_BATCH) {
    const batch = chosen.slice(i, i + DFU_BATCH);
    for (const device of batch) await provisioned(hub, device);
    await hub.performDfuAction("host", "update", { deviceUID: batch }, { filename: stored.filename });
  }
}
