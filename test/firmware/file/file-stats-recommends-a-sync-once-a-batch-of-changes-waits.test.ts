// Source: blues/notecard-schema file.stats.rsp.notecard.api.json (`sync`: "a sync is recommended
// based on the number of pending notes"; sample {"total":83,"changes":78,"sync":true}) and
// blues/note lib/notefile.go defaultMaxGetChangesBatchSize (25 changes per batch).
import { describe, expect, it } from "vitest";
import { SYNC_RECOMMENDED_CHANGES } from "../../../firmware/requests/file.js";
import { bootTestModule } from "../../support/moduleFixture.js";

describe("file.stats sync (notecard-schema file.stats.rsp, notelib defaultMaxGetChangesBatchSize)", () => {
  it("recommends a sync once a full batch of 25 changes waits, not after every note", async () => {
    expect(SYNC_RECOMMENDED_CHANGES).toBe(25);
    const t = await bootTestModule();
    await t.req({ req: "note.add", file: "s.qo", body: { n: 0 } });
    expect(await t.req({ req: "file.stats" })).toEqual({ total: 1, changes: 1 });
    for (let n = 1; n < 24; n++) await t.req({ req: "note.add", file: "s.qo", body: { n } });
    expect((await t.req({ req: "file.stats" })).sync).toBeUndefined();
    await t.req({ req: "note.add", file: "s.qo", body: { n: 24 } });
    expect(await t.req({ req: "file.stats" })).toEqual({ total: 25, changes: 25, sync: true });
  });

  it("reproduces the schema sample: 78 pending changes recommend a sync", async () => {
    const t = await bootTestModule();
    for (let n = 0; n < 78; n++) await t.req({ req: "note.add", file: "s.qo", body: { n } });
    for (let n = 0; n < 5; n++) await t.req({ req: "note.add", file: "l.dbx", note: `${n}`, body: { n } });
    expect(await t.req({ req: "file.stats" })).toEqual({ total: 83, changes: 78, sync: true });
  });

  it("counts only the named notefile with file", async () => {
    const t = await bootTestModule();
    for (let n = 0; n < 25; n++) await t.req({ req: "note.add", file: "big.qo", body: { n } });
    await t.req({ req: "note.add", file: "small.qo", body: { n: 0 } });
    expect(await t.req({ req: "file.stats", file: "big.qo" })).toEqual({
      total: 25,
      changes: 25,
      sync: true,
    });
    expect(await t.req({ req: "file.stats", file: "small.qo" })).toEqual({ total: 1, changes: 1 });
  });
});
