import type { AuxPins } from "./AuxPins.js";
import type { Surroundings } from "./Surroundings.js";

/**
 * The same surroundings with other AUX pins: on a rig, the world model still places, moves and
 * heats the module, but its AUX pins are the board's GPIO lines.
 */
export function withAuxPins(world: Surroundings, aux: AuxPins): Surroundings {
  return new Proxy(world, {
    get(target, property) {
      if (property === "aux") return aux;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
