import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_SIGNAL_DEVICES } from "../../hub/api/consoleProjectRoutes.js";
import { startHub, type RunningHub } from "../../runtime/startHub.js";

/**
 * The devices table's signal column: for each device named, the radio its newest session record
 * holds (what the module reported when the session opened), read from the session records.
 */
describe("the console's device signals", () => {
  let dir: string;
  let hub: RunningHub;
  let project: string;
  const get = async (query: string) => {
    const response = await fetch(`${hub.url}/console/api/projects/${project}/signals?${query}`, {
      headers: { authorization: `Bearer ${hub.credentials.token}` },
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };
  const session = (uid: string, deviceUid: string, beganSec: number, radio: Record<string, unknown>) =>
    hub.store.telemetry.addSession({
      uid,
      deviceUid,
      projectUid: project,
      beganSec,
      endedSec: beganSec + 5,
      firstSync: false,
      data: { why_session_opened: "explicit", ...radio },
    });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "cardsim-signals-"));
    hub = await startHub({ dir, listen: "127.0.0.1:0", tlsListen: false, database: "memory" });
    project = hub.credentials.project_uid;
    const lte = { rat: "lte", bearer: "LTE Cat-1", rssi: -90, rsrp: -110, rsrq: -12, sinr: 3, bars: 1 };
    await session("s-1", "dev:000000000000001", 1_700_000_000, lte);
    await session("s-2", "dev:000000000000001", 1_700_000_600, { ...lte, rat: "catm", rssi: -65, bars: 4 });
    await session("s-3", "dev:000000000000002", 1_700_000_100, { ...lte, rssi: -77, bars: 3 });
  });
  afterAll(async () => {
    await hub?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("gives each device the signal of its newest session, and none for a device without a session", async () => {
    const answer = await get(
      "deviceUID=dev:000000000000001,dev:000000000000002&deviceUID=dev:000000000000003",
    );
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      signals: {
        "dev:000000000000001": expect.objectContaining({
          rat: "catm",
          rssi: -65,
          bars: 4,
          when: 1_700_000_600,
        }),
        "dev:000000000000002": expect.objectContaining({
          rat: "lte",
          rssi: -77,
          bars: 3,
          when: 1_700_000_100,
        }),
      },
    });
  });

  it("refuses more devices than a page of the table holds, saying how many it takes", async () => {
    const many = Array.from({ length: MAX_SIGNAL_DEVICES + 1 }, (_, i) => `deviceUID=dev:${i}`).join("&");
    const answer = await get(many);
    expect(answer.status).toBe(400);
    expect(answer.json["err"]).toMatch(/deviceUID names at most 100 devices/);
  });
});
