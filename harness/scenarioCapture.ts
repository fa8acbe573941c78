import type { Clock } from "../core/Clock.js";
import { LinkCapture } from "../hil/capture/LinkCapture.js";
import type { ScenarioOptions } from "./ScenarioOptions.js";

/**
 * The capture of a scenario, its header saying how to boot the same module and links again (so
 * that a replay can), streamed to a file when `capture` names one.
 */
export function scenarioCapture(
  options: ScenarioOptions,
  clock: Clock,
  seed: number | string,
  linkName: string,
  board: string | undefined,
): LinkCapture | undefined {
  if (!options.capture) return undefined;
  const serial = options.serial ?? {};
  const capture = new LinkCapture(clock, {
    module: {
      seed,
      variant: options.variant ?? "cell",
      timeKnown: options.timeKnown ?? false,
      ...(options.flash && !options.store ? { flash: options.flash } : {}),
      ...(options.mojo ? { mojo: true } : {}),
    },
    links: {
      [linkName]: {
        kind: "serial",
        ...(serial.baud ? { baud: serial.baud } : {}),
        rx: serial.rx ?? {},
        ...(serial.impair ? { impair: serial.impair } : {}),
        ...(serial.device ? { device: serial.device } : {}),
      },
      ...(options.i2c
        ? {
            i2c: {
              kind: "i2c",
              profile:
                typeof options.i2c.profile === "object"
                  ? options.i2c.profile.name
                  : (options.i2c.profile ?? "ideal"),
              address: options.i2c.address ?? 0x17,
              ...(options.i2c.impair ? { impair: options.i2c.impair } : {}),
            },
          }
        : {}),
    },
    ...(board ? { board } : {}),
  });
  if (typeof options.capture === "string") capture.streamTo(options.capture);
  return capture;
}
