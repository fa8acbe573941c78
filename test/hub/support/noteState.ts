import type { TestHub } from "./hubFixture.js";

/**
 * Everything about a device's notes a request could change, read straight from the store: each
 * notefile with its notes (tombstones included), where the given trackers stand, and the events
 * the hub recorded for the device. Equal snapshots mean nothing changed.
 */
export async function noteState(hub: TestHub, deviceUid: string, trackers: string[] = []): Promise<string> {
  const { notefiles, telemetry } = hub.store;
  const files = [];
  for (const nf of await notefiles.listNotefiles(deviceUid)) {
    files.push({ nf, notes: await notefiles.listNotes(deviceUid, nf.fileId, { includeDeleted: true }) });
  }
  const positions = [];
  for (const tracker of trackers) positions.push(await notefiles.summaries(deviceUid, tracker));
  const events = await telemetry.latestEvents(hub.projectUid, deviceUid);
  return JSON.stringify({ files, positions, events });
}
