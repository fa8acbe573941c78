import type { I2cTargetBackend } from "../hil/i2c/I2cTargetBackend.js";

/** A pin of the 40-pin header: the SoC's GPIO number, the line name the kernel gives it, the header pin. */
export interface HeaderPin {
  readonly gpio: number;
  /** GPIO character-device line name (`GPIO17`), stable across Pi models and kernels. */
  readonly line: string;
  /** Physical pin on the 40-pin header. */
  readonly pin: number;
}

export type I2cBackendKind = I2cTargetBackend["kind"];

/**
 * Everything cardsim needs to stand in for the module on one kind of board: which device the
 * host's serial line arrives on, how the I2C target is provided, which GPIO lines carry ATTN, the
 * host's RESET and the AUX pins, and the lines to put in /boot/firmware/config.txt.
 */
export interface BoardDefinition {
  readonly name: string;
  readonly title: string;
  /** UART toward the host: the device once the overlays below are set. */
  readonly serial?: {
    readonly device: string;
    readonly txd: HeaderPin;
    readonly rxd: HeaderPin;
    /** The module's UART rate (9600 like the real one's main serial port). */
    readonly baudRate: number;
    readonly notes: string;
  };
  /** USB device mode: the Pi appears to the host as a USB serial device. */
  readonly usbGadget?: {
    readonly device: string;
    readonly configTxt: readonly string[];
    readonly notes: string;
  };
  readonly i2c: {
    /** The backend used unless another is asked for. */
    readonly backend: I2cBackendKind;
    /** Backends this board can use. */
    readonly backends: readonly I2cBackendKind[];
    /** Target pins of the Pi's BSC peripheral (pigpiod backend). */
    readonly bsc?: { readonly sda: HeaderPin; readonly scl: HeaderPin };
    /** Where the RP2040 bridge usually appears. */
    readonly bridgeDevice: string;
    /**
     * The Pi's own I2C controller (I2C-1, `/dev/i2c-1`): wired to the target's pins it plays the
     * host in `cardsim selftest`.
     */
    readonly controller?: { readonly sda: HeaderPin; readonly scl: HeaderPin; readonly bus: number };
    readonly notes: string;
  };
  readonly gpio: {
    /** Chip to use; absent = lines are found by name (Pi 5's chip number changed between kernels). */
    readonly chip?: string;
    /** The module's ATTN output, to a host input (interrupt-capable). */
    readonly attn: HeaderPin;
    /** The host MCU's RESET input (active LOW), driven by the harness and by `card.dfu` updates. */
    readonly hostReset: HeaderPin;
    /**
     * The host MCU's BOOT (boot-mode select) input, driven by the module during an outboard
     * firmware update (`card.dfu`) and released otherwise. Absent: the rig has none wired.
     */
    readonly hostBoot?: HeaderPin;
    /** The module's AUX1..AUX4 pins. */
    readonly aux: readonly (HeaderPin & { readonly name: string })[];
  };
  /** Lines for /boot/firmware/config.txt (reboot after changing). */
  readonly configTxt: readonly string[];
  /** One-time setup commands, in order. */
  readonly setup: readonly string[];
}

export const pin = (gpio: number, headerPin: number): HeaderPin => ({
  gpio,
  line: `GPIO${gpio}`,
  pin: headerPin,
});
