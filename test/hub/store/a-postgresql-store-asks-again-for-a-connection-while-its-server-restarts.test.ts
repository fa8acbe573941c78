import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HubStore } from "../../../hub/store/HubStore.js";
import { openHubStore } from "../../../runtime/openHubStore.js";
import { POSTGRES_SKIP_MESSAGE, privateCluster } from "../../support/postgres.js";
import { putDevice, seedProject } from "./contract/support/seed.js";

const cluster = privateCluster();

/**
 * A server that restarts under a running hub: what the hub asks of the store meanwhile waits for
 * a connection (asked for again with backoff, each wait reported), and then runs; nothing written
 * before the restart is lost.
 */
describe.skipIf(!cluster)("a PostgreSQL store whose server restarts", () => {
  let store: HubStore;
  const told: string[] = [];
  /** Resolved by the next report of a wait. */
  let reported = (): void => undefined;
  const nextReport = () => new Promise<void>((resolve) => (reported = resolve));

  beforeAll(async () => {
    store = await openHubStore(cluster!.url, {
      onRetry: (message) => {
        told.push(message);
        reported();
      },
    });
    await seedProject(store);
  });

  afterAll(async () => {
    await store?.close();
    cluster!.remove();
  });

  it("waits for the server, reports each wait, and then runs calls and transactions", async () => {
    await putDevice(store, 1);
    await store.setMeta("before", "kept");
    cluster!.down();
    // Asked while the server is down: each call waits for a connection, and says so.
    const waiting = nextReport();
    const read = store.getMeta("before");
    const write = store.transaction(async () => {
      await putDevice(store, 2);
      await store.setMeta("during", "written");
    });
    await waiting;
    await nextReport();
    cluster!.up();
    expect(await read).toBe("kept");
    await write;
    expect(await store.getMeta("during")).toBe("written");
    expect((await store.devices.getDevice("dev:2"))?.uid).toBe("dev:2");
    expect(told.length).toBeGreaterThan(0);
    expect(told[0]).toMatch(/^hub store: lost the connection to PostgreSQL \(.+\); trying again in 100 ms$/);
  });
});

if (!cluster)
  describe("a PostgreSQL store whose server restarts", () => it.skip(POSTGRES_SKIP_MESSAGE, () => undefined));
