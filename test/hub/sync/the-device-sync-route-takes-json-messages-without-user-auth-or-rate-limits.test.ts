import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SeededRandom } from "../../../core/SeededRandom.js";
import { bootstrapHub, NO_SIGN_IN } from "../../../hub/bootstrap.js";
import { buildHubApp } from "../../../hub/HubApp.js";
import { HubIds } from "../../../hub/HubIds.js";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { describeOnBackends, openTestStore } from "../../support/backends.js";
import { describeWithSqliteHalf } from "../../support/postgres.js";
import { SyncFixture, type Via } from "./support/syncFixture.js";

// Backend-free: run with the SQLite half (test/support/postgres.ts).
describeWithSqliteHalf("the device sync route", () => {
  describe.each(["in process", "http"] as Via[])("POST /device/v1 (%s)", (via) => {
    let hub: SyncFixture;
    beforeAll(async () => {
      hub = await SyncFixture.start(via);
    });
    afterAll(async () => hub.close());

    it("answers 200 with the protocol's reply, refusals included", async () => {
      const ok = await hub.post(
        JSON.stringify({ v: 1, type: "hello", device: "dev:42", product: hub.productUid }),
      );
      expect(ok.status).toBe(200);
      expect(JSON.parse(ok.text)).toMatchObject({ v: 1, challenge: expect.any(String) });
      const refused = await hub.post(JSON.stringify({ v: 9, type: "hello" }));
      expect(refused.status).toBe(200);
      expect(JSON.parse(refused.text).err).toMatch(/^\{protocol-version\}/);
      const empty = await hub.post("");
      expect(empty.status).toBe(200);
      expect(JSON.parse(empty.text).err).toMatch(/^\{bad-request\}/);
    });

    it("refuses what never reaches the protocol with HTTP errors: not JSON, too deep, too large", async () => {
      expect((await hub.post("{not json")).status).toBe(400);
      expect((await hub.post(`${"[".repeat(101)}${"]".repeat(101)}`)).status).toBe(400);
      const large = JSON.stringify({ v: 1, type: "hello", pad: "x".repeat(1024 * 1024) });
      expect((await hub.post(large)).status).toBe(413);
      // Text that is not JSON reaches the protocol as text, which is no message.
      const text = await hub.post("hello", "text/plain");
      expect(text.status).toBe(200);
      expect(JSON.parse(text.text).err).toMatch(/^\{bad-request\}/);
    });
  });

  // On PostgreSQL the API's limits are counted in the store: the sync's route must not reach them there either.
});

describeOnBackends("POST /device/v1 and the API's rate limits", (backend) => {
  it("is not limited by them (the protocol answers every message)", async () => {
    const store = await openTestStore(backend);
    const clock = new FakeClock();
    const ids = new HubIds(new SeededRandom(3));
    const { app } = await buildHubApp({ store, clock, ids, rateLimits: { perMinute: 2, perDay: 10 } });
    try {
      const { state } = await bootstrapHub(store, ids, clock, NO_SIGN_IN);
      for (let i = 0; i < 20; i++) {
        const res = await app.inject({
          method: "POST",
          url: "/device/v1",
          payload: { v: 1, type: "hello", device: "dev:7", product: state.product_uid },
        });
        expect(res.statusCode).toBe(200);
      }
    } finally {
      await app.close();
      await store.close();
    }
  });
});
