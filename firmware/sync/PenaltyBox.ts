import type { Notebox } from "../storage/Notebox.js";

/** Configuration record of the registration box's settings (`card.wireless.penalty set`). */
export const PENALTY_KEY = "penalty";

/** The registration box's backoff (`card.wireless.penalty`), minutes and a factor. */
export interface PenaltySettings {
  /** The first wait, minutes. */
  readonly min: number;
  /** Minutes added for each further consecutive failure. */
  readonly add: number;
  /** Factor the wait is multiplied by once more for each further consecutive failure. */
  readonly rate: number;
  /** The longest wait, minutes. */
  readonly max: number;
}

export const DEFAULT_PENALTY: PenaltySettings = { min: 15, add: 15, rate: 1.25, max: 4320 };

/**
 * Why a session could not start: the radio did not register on a network (`registration`), or
 * it did but the hub did not answer the connection (`hub`).
 */
export type ConnectFailure = "registration" | "hub";

/** Consecutive hub-connection failures before the hub box closes (the first is retried freely). */
export const HUB_BOX_AFTER = 2;
/** The hub box's first wait and its longest, minutes (doubling in between). */
export const HUB_BOX_FIRST_MINUTES = 15;
export const HUB_BOX_MAX_MINUTES = 1440;

/** A box the module sits in now. */
export interface BoxState {
  readonly kind: ConnectFailure;
  /** Module clock ms the box opens again. */
  readonly until: number;
  /** Seconds left, rounded up. */
  readonly seconds: number;
  /** Consecutive failures of this kind. */
  readonly count: number;
  /** The module's status text with its `{...}` tokens. */
  readonly status: string;
}

interface Tally {
  count: number;
  /** Module clock ms of the first failure of the run. */
  first: number;
  /** Module clock ms the box opens again (0: no box). */
  until: number;
}

export function penaltySettings(notebox: Notebox): PenaltySettings {
  return { ...DEFAULT_PENALTY, ...(notebox.config<Partial<PenaltySettings>>(PENALTY_KEY) ?? {}) };
}

/**
 * The wait of the registration box after the `n`th consecutive failure (n >= 1), minutes:
 * `min(max, (min + add·(n−1)) · rate^(n−1))`. Defaults give 15, 37.5, 70.3, 117.2, 178.0 ...
 * up to 4320 (three days).
 */
export function registrationWait(settings: PenaltySettings, n: number): number {
  const k = Math.max(0, n - 1);
  return Math.min(settings.max, (settings.min + settings.add * k) * settings.rate ** k);
}

/**
 * The wait of the hub-connection box after the `n`th consecutive failure, minutes: none for the
 * first (`HUB_BOX_AFTER`), then 15, 30, 60 ... doubling up to a day.
 */
export function hubWait(n: number): number {
  if (n < HUB_BOX_AFTER) return 0;
  return Math.min(HUB_BOX_MAX_MINUTES, HUB_BOX_FIRST_MINUTES * 2 ** (n - HUB_BOX_AFTER));
}

const fresh = (): Tally => ({ count: 0, first: 0, until: 0 });

/**
 * The module's penalty boxes for connection failures (RAM: a restart empties them, as it does on
 * the real module). A box keeps the module from trying to connect until it opens again; the
 * schedule plans its next attempt for then.
 */
export class PenaltyBox {
  readonly #notebox: () => Notebox;
  #registration = fresh();
  #hub = fresh();

  constructor(notebox: () => Notebox) {
    this.#notebox = notebox;
  }

  /** A session could not connect, at `now` (module clock ms). */
  failed(kind: ConnectFailure, now: number): void {
    const tally = kind === "registration" ? this.#registration : this.#hub;
    if (tally.count === 0) tally.first = now;
    tally.count++;
    const minutes =
      kind === "registration"
        ? registrationWait(penaltySettings(this.#notebox()), tally.count)
        : hubWait(tally.count);
    tally.until = minutes > 0 ? now + Math.round(minutes * 60_000) : 0;
    if (kind === "registration") this.#hub = fresh();
  }

  /** A session connected: every count starts again. */
  connected(): void {
    this.#registration = fresh();
    this.#hub = fresh();
  }

  /** Opens boxes (the counts stay, so the next failure waits longer): `hub.sync allow`. */
  lift(kinds: readonly ConnectFailure[]): void {
    for (const kind of kinds) (kind === "registration" ? this.#registration : this.#hub).until = 0;
  }

  /** `card.wireless.penalty reset`: the registration box opens and its count starts again. */
  reset(): void {
    this.#registration = fresh();
  }

  /** Consecutive registration failures and minutes since the first of them (`card.wireless.penalty`). */
  registrationTally(now: number): { count: number; minutes: number } {
    const t = this.#registration;
    return { count: t.count, minutes: t.count > 0 ? Math.floor((now - t.first) / 60_000) : 0 };
  }

  /** The box the module is in at `now`, if any (the one that opens last). */
  boxed(now: number): BoxState | undefined {
    let state: BoxState | undefined;
    for (const kind of ["registration", "hub"] as const) {
      const tally = kind === "registration" ? this.#registration : this.#hub;
      if (tally.until <= now) continue;
      if (state && state.until >= tally.until) continue;
      const seconds = Math.ceil((tally.until - now) / 1000);
      const left = `${(Math.round(seconds / 6) / 10).toFixed(1)} min remaining`;
      state = {
        kind,
        until: tally.until,
        seconds,
        count: tally.count,
        status:
          kind === "registration"
            ? `network: can't connect (${left}) {registration-failure}{network}{extended-network-failure}`
            : `connect delayed (${left}): can't open session to notehub {service}{extended-service-failure}`,
      };
    }
    return state;
  }
}
