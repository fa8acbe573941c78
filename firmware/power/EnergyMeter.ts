import type { Clock } from "../../core/Clock.js";
import type { JsonObject } from "../../core/json.js";
import type { SessionEnergy } from "../../protocol/messages.js";
import type { VariantName } from "../Variant.js";

/**
 * What the module's activities cost, in the energy model. Modelled figures, not measurements:
 * orders of magnitude for comparing firmware choices (how often to sync, how long to stay
 * online), documented in docs/module.md and overridable per module.
 */
export interface EnergyRates {
  /** Charge of one session attempt on top of its radio time (registration, handshakes), mAh. */
  readonly sessionMah: number;
  /** Current drawn while the radio is on (a session, a held session), mA. */
  readonly radioOnMa: number;
  /** Charge per 1000 bytes moved either way in a session, mAh. */
  readonly perKbMah: number;
  /** Current drawn all the time (the module asleep between sessions), mA. */
  readonly idleMa: number;
}

/** Defaults per variant (the extended-power module uses its family's). */
export const ENERGY_DEFAULTS: Readonly<Record<VariantName, EnergyRates>> = {
  cell: { sessionMah: 0.3, radioOnMa: 100, perKbMah: 0.002, idleMa: 0.008 },
  "cell-wifi": { sessionMah: 0.3, radioOnMa: 100, perKbMah: 0.002, idleMa: 0.008 },
  wifi: { sessionMah: 0.1, radioOnMa: 80, perKbMah: 0.001, idleMa: 0.018 },
  lora: { sessionMah: 0.02, radioOnMa: 40, perKbMah: 0.01, idleMa: 0.008 },
  ntn: { sessionMah: 1, radioOnMa: 150, perKbMah: 0.05, idleMa: 0.008 },
};

/** The counters kept in flash (config `card.energy`), so a restart keeps them. */
export interface EnergyCounters {
  /** Session attempts, and those that moved data (completed). */
  readonly sessions: number;
  readonly dataSessions: number;
  /** Radio-on time of every attempt, and of the completed ones, ms. */
  readonly radioOnMs: number;
  readonly dataRadioOnMs: number;
  /** Bytes moved either way. */
  readonly bytes: number;
  /** Time the meter ran (the module powered), ms. */
  readonly poweredMs: number;
  /** Charge per cause, mAh. */
  readonly sessionMah: number;
  readonly radioMah: number;
  readonly dataMah: number;
  readonly idleMah: number;
}

export const ENERGY_CONFIG_KEY = "card.energy";

const ZERO: EnergyCounters = {
  sessions: 0,
  dataSessions: 0,
  radioOnMs: 0,
  dataRadioOnMs: 0,
  bytes: 0,
  poweredMs: 0,
  sessionMah: 0,
  radioMah: 0,
  dataMah: 0,
  idleMah: 0,
};

/** What `module.energy.report()` answers. */
export interface EnergyReport extends EnergyCounters {
  /** All charge used, mAh. */
  readonly mah: number;
  readonly rates: EnergyRates;
}

/** One session as the meter sees it (a SyncEngine outcome). */
export interface MeteredSession {
  readonly started: number;
  readonly ended: number;
  readonly ok: boolean;
  readonly held: boolean;
  readonly bytes: number;
}

const MS_PER_HOUR = 3_600_000;

/**
 * The energy model: every session attempt, second of radio-on time, byte moved and hour powered
 * costs charge. Counters survive restarts (the module saves them after each session and before a
 * restart); a power loss loses what was not saved, as RAM would.
 */
export class EnergyMeter {
  readonly #clock: Clock;
  readonly rates: EnergyRates;
  #counters: { -readonly [K in keyof EnergyCounters]: EnergyCounters[K] };
  #settledAt: number;
  /** Clock ms a held session's radio time was last counted to (the session is still open). */
  #heldSince: number | undefined;

  readonly #isHeld: () => boolean;

  /** `isHeld`: whether a session is held open now (its radio time counts while it is). */
  constructor(
    clock: Clock,
    rates: EnergyRates,
    saved?: Partial<EnergyCounters>,
    isHeld: () => boolean = () => false,
  ) {
    this.#clock = clock;
    this.#isHeld = isHeld;
    this.rates = rates;
    this.#counters = { ...ZERO, ...sanitize(saved) };
    this.#settledAt = clock.now();
  }

  /** Counts a session attempt: its cost, its radio time and its bytes. */
  session(session: MeteredSession): void {
    this.#settle(session.started);
    this.#heldSince = undefined;
    const c = this.#counters;
    const radioMs = Math.max(0, session.ended - session.started);
    c.sessions++;
    c.sessionMah += this.rates.sessionMah;
    this.#radio(radioMs, session.ok);
    if (session.ok) c.dataSessions++;
    c.bytes += session.bytes;
    c.dataMah += (session.bytes / 1000) * this.rates.perKbMah;
    if (session.held) this.#heldSince = session.ended;
  }

  /** A held session closed at `at` (clock ms): its radio time stops counting. */
  heldClosed(at = this.#clock.now()): void {
    this.#settle(at);
    this.#heldSince = undefined;
  }

  /** The counters as of now (for flash and for the report). */
  counters(): EnergyCounters {
    this.#settle(this.#clock.now());
    return { ...this.#counters };
  }

  report(): EnergyReport {
    const c = this.counters();
    return { ...c, mah: totalMah(c), rates: this.rates };
  }

  /** The `hp_*` counters and the charge used, as session records carry them (read in place: no copies). */
  sessionFields(): SessionEnergy {
    this.#settle(this.#clock.now());
    const c = this.#counters;
    return {
      hp_secs_total: Math.round(c.radioOnMs / 1000),
      hp_secs_data: Math.round(c.dataRadioOnMs / 1000),
      hp_cycles_total: c.sessions,
      hp_cycles_data: c.dataSessions,
      power_mah: Math.round(totalMah(c) * 1000) / 1000,
    };
  }

  /** Counts idle charge, and a held session's radio time, up to `at`. */
  #settle(at: number): void {
    const elapsed = Math.max(0, at - this.#settledAt);
    if (elapsed === 0) return;
    this.#settledAt = at;
    const c = this.#counters;
    c.poweredMs += elapsed;
    c.idleMah += (elapsed / MS_PER_HOUR) * this.rates.idleMa;
    if (this.#heldSince !== undefined && !this.#isHeld()) this.#heldSince = undefined;
    if (this.#heldSince !== undefined) {
      this.#radio(Math.max(0, at - this.#heldSince), true);
      this.#heldSince = at;
    }
  }

  #radio(ms: number, data: boolean): void {
    const c = this.#counters;
    c.radioOnMs += ms;
    if (data) c.dataRadioOnMs += ms;
    c.radioMah += (ms / MS_PER_HOUR) * this.rates.radioOnMa;
  }
}

/** All charge used, mAh. */
function totalMah(c: EnergyCounters): number {
  return c.sessionMah + c.radioMah + c.dataMah + c.idleMah;
}

/** Rates from defaults and overrides, each checked (>= 0). */
export function energyRates(variant: VariantName, overrides: Partial<EnergyRates> = {}): EnergyRates {
  const rates = { ...ENERGY_DEFAULTS[variant], ...overrides };
  for (const [key, value] of Object.entries(rates)) {
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0)
      throw new Error(`energy rate ${key} must be a number >= 0, got ${String(value)}`);
  }
  return rates;
}

function sanitize(saved: Partial<EnergyCounters> | undefined): Partial<EnergyCounters> {
  if (!saved || typeof saved !== "object") return {};
  const out: JsonObject = {};
  for (const key of Object.keys(ZERO)) {
    const value = (saved as Record<string, unknown>)[key];
    if (typeof value === "number" && Number.isFinite(value) && value >= 0) out[key] = value;
  }
  return out as Partial<EnergyCounters>;
}
