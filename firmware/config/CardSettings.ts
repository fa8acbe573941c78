/**
 * Configuration records of `card.*` requests (Notebox config keys and their shapes). Records the
 * sync engine writes are marked so; docs/module.md lists them all.
 */
export const CARD_KEYS = {
  /** `card.io`: `IoSettings`; the I2C target reads `i2c`, host links read `usb`. */
  io: "card.io",
  /** `card.contact`: `ContactSettings`. */
  contact: "card.contact",
  /** Written by the sync engine: the time zone and place of the last session (`TimeZone`). */
  timeZone: "card.time.zone",
  /** `card.restore connected:true`: `true` until the sync engine has deprovisioned the module. */
  deprovision: "card.restore.connected",
  /** Module identity (`{device}`), written by Module at first boot; kept by every reset. */
  identity: "identity",
  /** The module's key pair (`KeyRecord`), made at first boot; kept by every reset. */
  key: "identity.key",
} as const;

/** Default I2C address of the module. */
export const DEFAULT_I2C_ADDRESS = 0x17;

export interface IoSettings {
  /** Alternate 7-bit I2C address (absent: 0x17); kept by factory resets. */
  readonly i2c?: number;
  /** The USB port is disabled (`-usb`). */
  readonly usbDisabled?: boolean;
  /** The LED shows awake/asleep (`+busy`). */
  readonly busyLed?: boolean;
  /** The module does not act as an I2C controller (`i2c-master-disable`). */
  readonly i2cMasterDisabled?: boolean;
  /** Satellite fallback forced (`+fallback`). */
  readonly ntnFallback?: boolean;
}

export interface ContactSettings {
  readonly name?: string;
  readonly org?: string;
  readonly role?: string;
  readonly email?: string;
}

/** What `card.time` reports besides the time, as the hub's session told it. */
export interface TimeZone {
  /** `"CDT,America/New York"`: abbreviation and zone name. */
  readonly zone: string;
  /** Offset from UTC in minutes. */
  readonly minutes?: number;
  readonly area?: string;
  readonly country?: string;
  readonly lat?: number;
  readonly lon?: number;
}
