import { afterEach, beforeEach, expect, it } from "vitest";
import type { HubStore } from "../../../../hub/store/HubStore.js";
import { StoreError } from "../../../../hub/store/StoreError.js";
import { describeEachBackend } from "./support/backends.js";
import { PRODUCT, PROJECT, seedProject, T0 } from "./support/seed.js";

/** A refusal of a row with a NULL in a NOT NULL column, as either database words it. */
const NOT_NULL = /NOT NULL|not-null/;

/** A promise and its resolver, to hold a transaction open at a chosen point. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** Lets every pending promise job run (the store's calls settle within a few turns). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describeEachBackend("a store transaction", (backend) => {
  let store: HubStore;
  /** SQLite runs one transaction at a time (its gate); a server database runs them side by side. */
  const serialised = backend.name === "sqlite";
  const itSerialised = serialised ? it : it.skip;

  beforeEach(async () => {
    store = await backend.open();
    await seedProject(store);
  });

  afterEach(() => backend.dispose(store));

  const device = (n: number) =>
    store.devices.putDevice({ uid: `dev:${n}`, projectUid: PROJECT, productUid: PRODUCT, provisioned: T0 });
  const event = (uid: string, deviceUid = "dev:1") =>
    store.telemetry.addEvent({
      uid,
      projectUid: PROJECT,
      deviceUid,
      sessionUid: null,
      file: "data.qo",
      received: T0 / 1000,
      whenSec: T0 / 1000,
      data: { n: 1 },
    });
  const events = async (deviceUid = "dev:1") =>
    (await store.telemetry.latestEvents(PROJECT, deviceUid)).length;

  it("commits every call made inside it together and returns what the work returned", async () => {
    const result = await store.transaction(async () => {
      await device(1);
      await store.notefiles.addNote("dev:1", "config.db", { noteId: "a", body: { x: 1 }, payload: null }, T0);
      await event("e1");
      return "done";
    });
    expect(result).toBe("done");
    expect(await store.devices.getDevice("dev:1")).toBeDefined();
    expect((await store.notefiles.getNote("dev:1", "config.db", "a"))?.body).toEqual({ x: 1 });
    expect(await events()).toBe(1);
  });

  it("rolls back every call made inside it when the work throws mid-way, and passes the error on", async () => {
    const failure = new Error("mid-way");
    await expect(
      store.transaction(async () => {
        await device(1);
        await store.notefiles.addNote("dev:1", "config.db", { noteId: "a", body: {}, payload: null }, T0);
        await event("e1");
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await store.devices.getDevice("dev:1")).toBeUndefined();
    expect(await store.notefiles.getNotefile("dev:1", "config.db")).toBeUndefined();
    expect(await events()).toBe(0);
    expect((await store.devices.listDevices(PROJECT, {}, { limit: 10, offset: 0 })).items).toEqual([]);
  });

  it("rolls back on a store refusal and leaves no cached read of what was undone", async () => {
    await device(1);
    await expect(
      store.transaction(async () => {
        await store.devices.putDevice({
          uid: "dev:1",
          projectUid: PROJECT,
          productUid: PRODUCT,
          sku: "NOTE-X",
        });
        // Read inside: the device list and the device are cached with the uncommitted change.
        expect((await store.devices.getDevice("dev:1"))?.sku).toBe("NOTE-X");
        expect((await store.devices.listDevices(PROJECT, {}, { limit: 10, offset: 0 })).items[0]?.sku).toBe(
          "NOTE-X",
        );
        await store.notefiles.addNote("dev:1", "config.db", { noteId: "a", body: {}, payload: null }, T0);
        await store.notefiles.addNote("dev:1", "config.db", { noteId: "a", body: {}, payload: null }, T0);
      }),
    ).rejects.toBeInstanceOf(StoreError);
    expect((await store.devices.getDevice("dev:1"))?.sku).toBeNull();
    expect((await store.devices.listDevices(PROJECT, {}, { limit: 10, offset: 0 })).items[0]?.sku).toBeNull();
    expect(await store.notefiles.getNotefile("dev:1", "config.db")).toBeUndefined();
  });

  // A batch of events is stored without a savepoint of its own inside a transaction (the sync's
  // hot path): its failure part-way must still leave nothing, however the work handles it.
  const batch = (uids: string[], badAt = -1) =>
    store.telemetry.addEvents(
      uids.map((uid, i) => ({
        uid,
        // A row the database refuses (NOT NULL), after others were inserted.
        projectUid: (i === badAt ? null : PROJECT) as string,
        deviceUid: "dev:1",
        sessionUid: null,
        file: "data.qo",
        received: T0 / 1000 + i,
        whenSec: T0 / 1000,
        data: { i },
      })),
    );

  it("stores a batch of events inside it, each once, and commits them with the rest", async () => {
    await store.transaction(async () => {
      await device(1);
      expect(await batch(["a", "b", "a2"])).toEqual([true, true, true]);
      expect(await batch(["b", "c"])).toEqual([false, true]);
    });
    expect((await store.telemetry.getEvent(PROJECT, "c"))?.data).toEqual({ i: 1 });
    expect(await store.telemetry.getEvent(PROJECT, "a2")).toBeDefined();
  });

  it("cannot commit once a batch of events failed part-way in it, even when the work catches the error", async () => {
    let caught: unknown;
    await expect(
      store.transaction(async () => {
        await device(1);
        await batch(["a", "b", "c"], 2).catch((error: unknown) => (caught = error));
        return "carried on";
      }),
    ).rejects.toSatisfy((error) => error === caught && NOT_NULL.test(String(error)));
    expect(await store.devices.getDevice("dev:1")).toBeUndefined();
    expect(await store.telemetry.getEvent(PROJECT, "a")).toBeUndefined();
    // The store goes on: the next transaction commits.
    await store.transaction(async () => {
      await device(1);
      await batch(["a", "b"]);
    });
    expect(await store.telemetry.getEvent(PROJECT, "b")).toBeDefined();
  });

  it("rolls back only the nested unit a failed batch was in", async () => {
    await store.transaction(async () => {
      await device(1);
      await expect(store.transaction(() => batch(["a", "b"], 1))).rejects.toThrow(NOT_NULL);
      await batch(["c"]);
    });
    expect(await store.devices.getDevice("dev:1")).toBeDefined();
    expect(await store.telemetry.getEvent(PROJECT, "a")).toBeUndefined();
    expect(await store.telemetry.getEvent(PROJECT, "c")).toBeDefined();
  });

  it("stores a batch outside any transaction whole or not at all", async () => {
    await device(1);
    await expect(batch(["a", "b", "c"], 2)).rejects.toThrow(NOT_NULL);
    expect(await store.telemetry.getEvent(PROJECT, "a")).toBeUndefined();
    expect(await batch(["a", "b"])).toEqual([true, true]);
  });

  itSerialised(
    "runs two interleaved transactions one after the other, the second seeing the first's commit",
    async () => {
      const log: string[] = [];
      const hold = gate();
      const first = store.transaction(async () => {
        log.push("first: begin");
        await device(1);
        await hold.opened;
        await event("e1");
        log.push("first: end");
      });
      const second = store.transaction(async () => {
        log.push("second: begin");
        log.push(`second: sees ${await events()} event(s)`);
        await event("e2");
        log.push("second: end");
      });
      await settle();
      expect(log).toEqual(["first: begin"]);
      hold.open();
      await Promise.all([first, second]);
      expect(log).toEqual([
        "first: begin",
        "first: end",
        "second: begin",
        "second: sees 1 event(s)",
        "second: end",
      ]);
      expect(await events()).toBe(1); // latest per notefile: e2
      expect((await store.telemetry.latestEvents(PROJECT, "dev:1"))[0]?.uid).toBe("e2");
    },
  );

  itSerialised(
    "makes a plain call during an open transaction wait, then see the committed state",
    async () => {
      const hold = gate();
      const tx = store.transaction(async () => {
        await device(1);
        await hold.opened;
        await store.devices.putDevice({
          uid: "dev:1",
          projectUid: PROJECT,
          productUid: PRODUCT,
          sku: "NOTE-X",
        });
      });
      await settle();
      let seen: string | null | undefined = "not yet";
      const read = store.devices.getDevice("dev:1").then((d) => (seen = d?.sku));
      await settle();
      expect(seen).toBe("not yet");
      hold.open();
      await Promise.all([tx, read]);
      expect(seen).toBe("NOTE-X");
    },
  );

  it("makes a plain call during a transaction that rolls back see the state from before it", async () => {
    const hold = gate();
    const tx = store.transaction(async () => {
      await device(1);
      await hold.opened;
      throw new Error("no");
    });
    await settle();
    const read = store.devices.getDevice("dev:1");
    hold.open();
    await expect(tx).rejects.toThrow("no");
    expect(await read).toBeUndefined();
  });

  itSerialised("runs plain calls queued behind a transaction in the order they were made", async () => {
    const hold = gate();
    const tx = store.transaction(async () => {
      await device(1);
      await hold.opened;
    });
    await settle();
    const order: string[] = [];
    const calls = [
      store.setMeta("k", "1").then(() => order.push("set 1")),
      store.getMeta("k").then((v) => order.push(`get ${v}`)),
      store.setMeta("k", "2").then(() => order.push("set 2")),
      store.getMeta("k").then((v) => order.push(`get ${v}`)),
    ];
    hold.open();
    await Promise.all([tx, ...calls]);
    expect(order).toEqual(["set 1", "get 1", "set 2", "get 2"]);
  });

  it("joins a transaction started inside another: its changes commit only with the outer one", async () => {
    const hold = gate();
    const outer = store.transaction(async () => {
      await store.transaction(async () => {
        await device(1);
      });
      await hold.opened;
      throw new Error("outer fails");
    });
    await settle();
    hold.open();
    await expect(outer).rejects.toThrow("outer fails");
    expect(await store.devices.getDevice("dev:1")).toBeUndefined();
  });

  it("undoes only a nested unit's changes when it throws and the outer transaction carries on", async () => {
    await store.transaction(async () => {
      await device(1);
      await store
        .transaction(async () => {
          await device(2);
          throw new Error("inner fails");
        })
        .catch(() => undefined);
      await device(3);
    });
    expect(await store.devices.getDevice("dev:1")).toBeDefined();
    expect(await store.devices.getDevice("dev:2")).toBeUndefined();
    expect(await store.devices.getDevice("dev:3")).toBeDefined();
  });

  it("runs nested units started side by side one after the other", async () => {
    const log: string[] = [];
    await store.transaction(async () => {
      const unit = (name: string, n: number) =>
        store.transaction(async () => {
          log.push(`${name} begin`);
          await device(n);
          await settle();
          log.push(`${name} end`);
        });
      await Promise.all([unit("a", 1), unit("b", 2)]);
    });
    expect(log).toEqual(["a begin", "a end", "b begin", "b end"]);
    expect(await store.devices.countDevices(PROJECT)).toBe(2);
  });

  it("runs after-commit actions once the outermost transaction commits, never for a rollback", async () => {
    const told: string[] = [];
    await store.transaction(async () => {
      store.afterCommit(() => told.push("outer"));
      await store.transaction(async () => {
        store.afterCommit(() => told.push("nested, kept"));
      });
      await store
        .transaction(async () => {
          store.afterCommit(() => told.push("nested, rolled back"));
          throw new Error("inner fails");
        })
        .catch(() => undefined);
      expect(told).toEqual([]);
    });
    expect(told).toEqual(["outer", "nested, kept"]);
    await store
      .transaction(async () => {
        store.afterCommit(() => told.push("rolled back"));
        throw new Error("no");
      })
      .catch(() => undefined);
    store.afterCommit(() => told.push("outside: at once"));
    expect(told).toEqual(["outer", "nested, kept", "outside: at once"]);
  });

  it("keeps running the other after-commit actions when one throws, and the commit stands", async () => {
    const told: string[] = [];
    await store.transaction(async () => {
      await device(1);
      store.afterCommit(() => {
        throw new Error("action fails");
      });
      store.afterCommit(() => told.push("second"));
    });
    expect(told).toEqual(["second"]);
    expect(await store.devices.getDevice("dev:1")).toBeDefined();
  });

  it("closes the database only after an open transaction has ended", async () => {
    await store.setMeta("k", "v");
    const hold = gate();
    const tx = store.transaction(async () => {
      await device(1);
      await hold.opened;
      await device(2);
    });
    await settle();
    const closed = store.close();
    hold.open();
    await Promise.all([tx, closed]);
    store = await backend.open(); // afterEach closes this one
  });

  it("makes a plain call during an open transaction never see its changes", async () => {
    const hold = gate();
    const tx = store.transaction(async () => {
      await store.setMeta("k", "inside");
      await hold.opened;
    });
    await settle();
    const outside = store.getMeta("k");
    if (!serialised) expect(await outside).toBeUndefined();
    hold.open();
    await tx;
    // SQLite made the call wait for the commit.
    if (serialised) expect(await outside).toBe("inside");
    expect(await store.getMeta("k")).toBe("inside");
  });

  it("commits a durable transaction like any other", async () => {
    expect(await store.transaction(async () => (await device(1)).uid, { durable: true })).toBe("dev:1");
    expect(await store.devices.getDevice("dev:1")).toBeDefined();
  });

  it("gives concurrent writers of one notefile distinct changes, and an event raced by many is stored once", async () => {
    await device(1);
    const writers = Array.from({ length: 8 }, (_, i) =>
      store.transaction(async () => {
        const note = await store.notefiles.addNote(
          "dev:1",
          "race.qo",
          { noteId: null, body: { i }, payload: null },
          T0,
        );
        const [stored] = await store.telemetry.addEvents([
          {
            uid: "raced",
            projectUid: PROJECT,
            deviceUid: "dev:1",
            sessionUid: null,
            file: "race.qo",
            received: T0 / 1000,
            whenSec: T0 / 1000,
            data: { i },
          },
        ]);
        return { change: note.change, stored };
      }),
    );
    const results = await Promise.all(writers);
    expect(results.map((r) => r.change).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(results.filter((r) => r.stored).length).toBe(1);
    expect((await store.notefiles.getNotefile("dev:1", "race.qo"))?.total).toBe(8);
  });
});
