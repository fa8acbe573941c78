// Run as `node --allow-natives-syntax --import tsx hiddenClassProbe.ts`: stores notes the ways the
// module does and prints one JSON line saying how many hidden classes (V8 maps) the stored notes
// of one shape have, and the members of one of them in order.
import { MemoryKvStore } from "../../../../firmware/storage/MemoryKvStore.js";
import { Notebox } from "../../../../firmware/storage/Notebox.js";
import { storeNote } from "../../../../firmware/storage/noteOps.js";

// V8's own test of two objects' hidden classes; only parsed with --allow-natives-syntax.
const sameMap = new Function("a", "b", "return %HaveSameMap(a, b)") as (a: object, b: object) => boolean;

function classes(objects: readonly object[]): number {
  const seen: object[] = [];
  for (const o of objects) if (!seen.some((s) => sameMap(s, o))) seen.push(o);
  return seen.length;
}

const box = await Notebox.open(new MemoryKvStore());
await box.transact(() => {
  const file = box.ensureFile("sensors.qo");
  for (let i = 0; i < 200; i++)
    storeNote(box, file, String(i + 1), {
      body: { temp: i / 10, seq: i },
      payload: undefined,
      time: 1767225600,
      template: undefined,
      where: undefined,
    });
  for (let i = 0; i < 200; i++) box.appendToQueue("health.qo", { body: { seq: i }, time: 1767225600 });
});
const stored = [...box.file("sensors.qo")!.ordered];
const appended = [...box.file("health.qo")!.ordered];
process.stdout.write(
  JSON.stringify({
    stored: classes(stored),
    appended: classes(appended),
    storedKeys: Object.keys(stored[0]!),
    appendedKeys: Object.keys(appended[0]!),
  }) + "\n",
);
