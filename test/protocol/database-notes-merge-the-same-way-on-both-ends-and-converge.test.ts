import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mergeNote, nextVersion } from "../../protocol/merge.js";
import {
  DEVICE_ENDPOINT as DEVICE,
  HUB_ENDPOINT as HUB,
  type NoteRecord,
} from "../../protocol/NoteRecord.js";

const created = (when: number): NoteRecord =>
  nextVersion(undefined, DEVICE, { id: "n", body: { v: 0 }, when, change: 1 });
const edit = (previous: NoteRecord, endpoint: string, v: number, when: number): NoteRecord =>
  nextVersion(previous, endpoint, { id: "n", body: { v }, when, change: previous.change + 1 });

describe("merging a database note (notelib's FeedSync-style rule)", () => {
  it("a version already seen changes nothing, so a retransmission is harmless", () => {
    const v0 = created(100);
    const v1 = edit(v0, HUB, 1, 200);
    expect(mergeNote(v1, v0)).toMatchObject({ changed: false, note: v1 });
    expect(mergeNote(v1, v1)).toMatchObject({ changed: false });
  });

  it("a version that has seen the stored one replaces it without a conflict", () => {
    const v0 = created(100);
    const v1 = edit(v0, HUB, 1, 200);
    expect(mergeNote(v0, v1)).toEqual({ note: v1, changed: true, conflict: false });
  });

  it("concurrent edits: more updates win, the loser is kept as a conflict", () => {
    const v0 = created(100);
    const device = edit(edit(v0, DEVICE, 1, 110), DEVICE, 2, 120);
    const hub = edit(v0, HUB, 9, 500);
    const out = mergeNote(hub, device);
    expect(out.conflict).toBe(true);
    expect(out.note.body).toEqual({ v: 2 });
    expect(out.note.conflicts?.map((c) => c.body)).toEqual([{ v: 9 }]);
  });

  it("equal updates: the newer change wins, then the greater endpoint (the hub's)", () => {
    const v0 = created(100);
    const older = edit(v0, DEVICE, 1, 150);
    const newer = edit(v0, HUB, 2, 160);
    expect(mergeNote(older, newer).note.body).toEqual({ v: 2 });
    expect(mergeNote(newer, older).note.body).toEqual({ v: 2 });
    const sameTimeDevice = edit(v0, DEVICE, 3, 170);
    const sameTimeHub = edit(v0, HUB, 4, 170);
    expect(mergeNote(sameTimeDevice, sameTimeHub).note.body).toEqual({ v: 4 });
  });

  it("after a conflict both ends settle on the same version, and an edit there resolves its own conflicts", () => {
    const v0 = created(100);
    const device = edit(v0, DEVICE, 1, 150);
    const hub = edit(v0, HUB, 2, 160);
    const atHub = mergeNote(hub, device).note;
    const atDevice = mergeNote(device, atHub).note;
    expect(atDevice).toEqual(atHub);
    expect(mergeNote(atHub, device).changed).toBe(false);
    const later = edit(atDevice, DEVICE, 3, 170);
    expect(later.conflicts).toBeUndefined();
    expect(mergeNote(atHub, later)).toMatchObject({ changed: true, conflict: false, note: later });
  });

  it("edits on both ends with syncs in between, in any order, end in one note on both ends", () => {
    const op = fc.constantFrom("device edit", "hub edit", "device to hub", "hub to device");
    fc.assert(
      fc.property(
        fc.array(op, { maxLength: 30 }),
        fc.array(fc.integer({ min: 100, max: 103 }), { minLength: 30, maxLength: 30 }),
        (ops, whens) => {
          let device: NoteRecord = created(100);
          let hub: NoteRecord = device;
          let n = 0;
          const lastEdit: Record<string, NoteRecord> = {};
          for (const [i, o] of ops.entries()) {
            if (o === "device edit") device = lastEdit[DEVICE] = edit(device, DEVICE, ++n, whens[i]!);
            else if (o === "hub edit") hub = lastEdit[HUB] = edit(hub, HUB, ++n, whens[i]!);
            else if (o === "device to hub") hub = mergeNote(hub, device).note;
            else device = mergeNote(device, hub).note;
          }
          // A full sync: the device's changes up, then the hub's down.
          hub = mergeNote(hub, device).note;
          device = mergeNote(device, hub).note;
          expect(device).toEqual(hub);
          expect(mergeNote(hub, device).changed).toBe(false);
          expect(mergeNote(device, hub).changed).toBe(false);
          // Nothing is lost: each end's last edit is the winner, one of its conflicts, or was seen by
          // the end that edited after it.
          const kept = [hub, ...(hub.conflicts ?? [])].map((v) => JSON.stringify(v.body));
          for (const last of Object.values(lastEdit)) {
            const superseded = Object.values(lastEdit).some(
              (other) =>
                other !== last &&
                other.history?.[last.endpoint] !== undefined &&
                other.history[last.endpoint]! >= last.updates,
            );
            if (!superseded) expect(kept).toContain(JSON.stringify(last.body));
          }
        },
      ),
    );
  });
});
