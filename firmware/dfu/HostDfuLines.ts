/**
 * The host MCU's lines an outboard firmware update (`card.dfu`) drives: its RESET input and its
 * BOOT (boot-mode select) input, and the serial path the image travels to the host's bootloader.
 * On a rig they are GPIO lines the board definition names (boards/: `hostReset`, `hostBoot`);
 * in tests a simulated host records what it got. Levels are electrical: `true` is HIGH.
 */
export interface HostDfuLines {
  /** Drives RESET: `true` holds the host in reset (the line is active LOW on every MCU here). */
  reset(asserted: boolean): void;
  /** Drives BOOT to an electrical level, or releases it (undefined: not driven). */
  boot(high: boolean | undefined): void;
  /** The image as the module sends it to the host's bootloader, in order. */
  program?(offset: number, bytes: Uint8Array): void | Promise<void>;
}

/** Lines that go nowhere (a module without a rig): the update still takes its time. */
export const unwiredHostLines: HostDfuLines = {
  reset: () => undefined,
  boot: () => undefined,
};

/** Host MCU classes `card.dfu` knows, and the BOOT level that selects their bootloader. */
export const OUTBOARD_CLASSES = {
  /** ESP32: GPIO0 LOW at reset. */
  esp32: { bootHigh: false },
  /** STM32: BOOT0 HIGH at reset. */
  stm32: { bootHigh: true },
  /** STM32 with the boot pin inverted on the carrier ("boot inverted"): LOW at reset. */
  "stm32-bi": { bootHigh: false },
  /** MCUboot: no boot pin; the bootloader takes the image after a reset. */
  mcuboot: { bootHigh: undefined },
} as const satisfies Record<string, { bootHigh: boolean | undefined }>;

export type OutboardClass = keyof typeof OUTBOARD_CLASSES;
