import type { Clock } from "../core/Clock.js";
import type { BoardDefinition } from "../boards/BoardDefinition.js";
import type { ModuleRigOptions } from "../runtime/assembleModule.js";
import type { ScenarioOptions } from "./ScenarioOptions.js";

/** What the scenario has made before its module is assembled. */
export interface ScenarioRigParts {
  readonly clock: Clock;
  readonly seed: number | string;
  readonly board: BoardDefinition | undefined;
  readonly supply: NonNullable<ModuleRigOptions["supply"]>;
  readonly radio: NonNullable<ModuleRigOptions["radio"]>;
  readonly log: NonNullable<ModuleRigOptions["log"]>;
  readonly attnPin: NonNullable<ModuleRigOptions["attnPin"]>;
  readonly hub: ModuleRigOptions["hub"] | undefined;
}

/**
 * A scenario's module and board as every module is built (runtime/assembleModule), from the
 * scenario's options: the flash (a power-loss flash, a store of the test's, or memory), the board
 * with the I2C profile asked for on the virtual board, the scenario's supply, radio, log and ATTN
 * watch. The host's links are the scenario's own (serial, I2C), attached afterwards.
 */
export function scenarioRigOptions(options: ScenarioOptions, parts: ScenarioRigParts): ModuleRigOptions {
  const board = parts.board;
  return {
    clock: parts.clock,
    seed: parts.seed,
    variant: options.variant ?? "cell",
    flash:
      options.flash && !options.store
        ? { powerLoss: typeof options.flash === "object" ? options.flash : {} }
        : options.store
          ? { store: options.store }
          : { memory: { capacity: options.flashCapacity } },
    ...(board
      ? {
          board,
          boardOptions: {
            ...options.boardOptions,
            ...(options.i2c?.profile !== undefined && board.name === "virtual"
              ? { simProfile: options.i2c.profile }
              : {}),
          },
        }
      : {}),
    attachI2cTarget: false,
    supply: parts.supply,
    radio: parts.radio,
    log: parts.log,
    timeKnown: options.timeKnown ?? false,
    attnPin: parts.attnPin,
    ...(parts.hub ? { hub: parts.hub } : {}),
    ...(options.energy ? { energy: options.energy } : {}),
    ...(options.mojo ? { world: { mojo: true } } : {}),
    ...(options.dfu ? { dfu: options.dfu } : {}),
  };
}
