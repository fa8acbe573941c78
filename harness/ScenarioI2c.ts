import type { Clock } from "../core/Clock.js";
import { DEFAULT_I2C_ADDRESS, I2cTarget } from "../firmware/host/I2cTarget.js";
import type { LineHandler } from "../firmware/host/SerialSession.js";
import type { LinkCapture } from "../hil/capture/LinkCapture.js";
import type { I2cController } from "../hil/i2c/I2cController.js";
import { I2C_PROFILES, type I2cHardwareProfile } from "../hil/i2c/I2cHardwareProfile.js";
import type { I2cTargetBackend, I2cTargetPort } from "../hil/i2c/I2cTargetBackend.js";
import { SimI2cBus } from "../hil/i2c/SimI2cBus.js";
import { ImpairedI2cController, type I2cImpairmentSpec } from "../hil/impair/ImpairedI2cController.js";

export interface ScenarioI2cOptions {
  /** Hardware the software bus models: `ideal` (default), `bsc` (Pi BSC via pigpiod), `pico` (RP2040 bridge). */
  readonly profile?: string | I2cHardwareProfile;
  /** The module's 7-bit address (default 0x17). */
  readonly address?: number;
  /** NACKs, truncated reads, late staging (in-process hosts only). */
  readonly impair?: readonly I2cImpairmentSpec[];
}

/** The module's end of the bus, swapped for a fresh one when the module loses power. */
class SwitchableTarget implements I2cTargetPort {
  readonly address: number;
  current: I2cTarget;

  constructor(target: I2cTarget) {
    this.address = target.address;
    this.current = target;
  }

  write(bytes: Uint8Array): void {
    this.current.write(bytes);
  }

  staged(): Uint8Array {
    return this.current.staged();
  }

  readDone(served: number): void {
    this.current.readDone(served);
  }
}

/**
 * A scenario's I2C link: the module's I2C target on a bus (the software bus with a hardware
 * profile, or a rig's backend), and for in-process hosts a controller with impairments whose
 * every transaction is captured at the host's end (`i2c.host`) and at the bus (`i2c.module`).
 */
export class ScenarioI2c {
  readonly backend: I2cTargetBackend;
  /** The software bus, when the bus is simulated. */
  readonly bus: SimI2cBus | undefined;
  /** What an in-process host drives: the bus seen through the impairments. */
  readonly controller: I2cController | undefined;
  readonly #target: SwitchableTarget;

  private constructor(
    backend: I2cTargetBackend,
    target: SwitchableTarget,
    controller: I2cController | undefined,
  ) {
    this.backend = backend;
    this.bus = backend instanceof SimI2cBus ? backend : undefined;
    this.#target = target;
    this.controller = controller;
  }

  static async attach(
    handler: LineHandler,
    env: {
      clock: Clock;
      options: ScenarioI2cOptions;
      /** A rig's backend; a software bus is made when absent. */
      backend?: I2cTargetBackend;
      capture?: LinkCapture;
      seed: number | string;
    },
  ): Promise<ScenarioI2c> {
    const { options, capture } = env;
    let backend = env.backend;
    if (!backend) {
      const profile = typeof options.profile === "string" ? I2C_PROFILES[options.profile] : options.profile;
      if (typeof options.profile === "string" && !profile) {
        throw new Error(
          `unknown I2C profile ${options.profile}; one of ${Object.keys(I2C_PROFILES).join(", ")}`,
        );
      }
      backend = new SimI2cBus({ clock: env.clock, ...(profile ? { profile } : {}) });
    }
    const target = new SwitchableTarget(
      new I2cTarget(handler, { address: options.address ?? DEFAULT_I2C_ADDRESS }),
    );
    await backend.attach(target);
    let controller: I2cController | undefined;
    if (backend instanceof SimI2cBus) {
      controller = new ImpairedI2cController(backend, {
        impair: options.impair,
        seed: env.seed,
        onHost: (r) => capture?.record("i2c.host", r.dir, r.kind, r.bytes, r.info),
        onBus: (r) => capture?.record("i2c.module", r.dir, r.kind, r.bytes, r.info),
        onImpair: (what, info) =>
          capture?.record("i2c.module", "h2m", "impair", undefined, { impairment: what, ...info }),
      });
    } else if (options.impair && options.impair.length > 0) {
      throw new Error(
        "I2C impairments apply to in-process hosts on the software bus; a rig's MCU drives its own bus",
      );
    }
    return new ScenarioI2c(backend, target, controller);
  }

  get target(): I2cTarget {
    return this.#target.current;
  }

  get address(): number {
    return this.#target.address;
  }

  /** Module output not yet read by the host. */
  get unread(): number {
    return this.#target.current.available;
  }

  /** The module lost power: its I2C state (unread output, partial lines) is gone. */
  replaceTarget(handler: LineHandler): void {
    this.#target.current = new I2cTarget(handler, { address: this.#target.address });
  }

  idle(): Promise<void> {
    return this.#target.current.idle();
  }

  close(): Promise<void> {
    return this.backend.close();
  }
}
