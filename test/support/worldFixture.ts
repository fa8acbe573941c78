import type { Note } from "../../firmware/storage/Note.js";
import type { GeoPoint } from "../../firmware/world/geo.js";
import { World } from "../../firmware/world/World.js";
import { FakeClock } from "../../runtime/FakeClock.js";
import { bootTestModule, type TestModule } from "./moduleFixture.js";

export const SALEM: GeoPoint = { lat: 42.5776, lon: -70.87134 };

/** A module on a fake clock in a world of its own (placed at `position`, Salem by default). */
export async function bootInWorld(
  options: { variant?: string; position?: GeoPoint | null; timeKnown?: boolean } = {},
): Promise<{ t: TestModule; world: World; clock: FakeClock }> {
  const clock = new FakeClock();
  const position = options.position === null ? undefined : (options.position ?? SALEM);
  const world = new World({ clock, ...(position ? { position } : {}) });
  const t = await bootTestModule({
    clock,
    world,
    variant: options.variant ?? "cell",
    ...(options.timeKnown ? { timeKnown: true } : {}),
  });
  return { t, world, clock };
}

/** The notes of a notefile, oldest first. */
export function notesOf(t: TestModule, file: string): Note[] {
  return [...(t.module.notebox.file(file)?.notes.values() ?? [])];
}
