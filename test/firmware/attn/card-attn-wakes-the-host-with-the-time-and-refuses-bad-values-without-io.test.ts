// Sources: note-c n_helpers.c NotePayloadRetrieveAfterSleep (sets the host clock from the `time`
// of `card.attn start:true`), note-c n_request.c and note-python notecard.py (retry replies whose
// err holds {io} unless it also holds {not-supported}), docs/module.md (a bad value is an error
// without {io}).
import { describe, expect, it } from "vitest";
import { bootTestModule } from "../../support/moduleFixture.js";

describe("card.attn start:true (note-c n_helpers.c NotePayloadRetrieveAfterSleep)", () => {
  it("answers the module's time at wake-up, which note-c sets the host clock from", async () => {
    const t = await bootTestModule();
    t.module.setTime(1_800_000_000);
    await t.req({ req: "card.attn", mode: "sleep", seconds: 3600, payload: "c3RhdGU=" });
    await t.clock.advance(3600_000);
    const woke = await t.req({ req: "card.attn", start: true });
    expect(woke.payload).toBe("c3RhdGU=");
    expect(woke.time).toBe(1_800_003_600);
    expect(woke.time).toBe(t.module.time());
  });

  it("answers the time even without a payload, as note-c reads it either way", async () => {
    const t = await bootTestModule();
    t.module.setTime(1_800_000_000);
    await t.req({ req: "card.attn", mode: "sleep", seconds: 60 });
    await t.clock.advance(90_000);
    expect(await t.req({ req: "card.attn", start: true })).toMatchObject({ time: 1_800_000_090 });
    expect((await t.req({ req: "card.attn", start: true })).payload).toBeUndefined();
  });

  it("leaves time out while the module does not know it", async () => {
    const t = await bootTestModule();
    await t.req({ req: "card.attn", mode: "sleep", seconds: 60, payload: "AQ==" });
    await t.clock.advance(60_000);
    const woke = await t.req({ req: "card.attn", start: true });
    expect(woke.payload).toBe("AQ==");
    expect(woke.time).toBeUndefined();
  });
});

describe("card.attn bad values carry no {io} (note-c n_request.c, note-python notecard.py retry {io})", () => {
  it.each([
    [{ mode: "watchdog", seconds: 30 }, /watchdog needs seconds of at least 60/],
    [{ mode: "arm,bogus" }, /unknown mode keyword: bogus/],
    [{ mode: "files" }, /needs a files array/],
    [{ mode: "arm,files", files: ["not a notefile"] }, /is not a notefile name/],
    [{ mode: "sleep" }, /sleep needs seconds/],
    [{ mode: "sleep", seconds: 5, payload: "!!" }, /not valid base64/],
  ])("%j is refused without {io}, so hosts do not retry it", async (args, message) => {
    const t = await bootTestModule();
    const { err } = await t.req({ req: "card.attn", ...args });
    expect(err).toMatch(message);
    expect(err).not.toMatch(/\{io\}/);
  });

  it("still answers a field of the wrong JSON type with {io} (the module's JSON decoder)", async () => {
    const t = await bootTestModule();
    expect((await t.req({ req: "card.attn", seconds: "30" })).err).toMatch(/\{io\}/);
  });
});
