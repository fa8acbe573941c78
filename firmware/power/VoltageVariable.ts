/** The supply states a voltage-variable string may name. */
export const VOLTAGE_STATES = ["usb", "high", "normal", "low", "dead"] as const;
export type VoltageState = (typeof VOLTAGE_STATES)[number];

/** What the numbers of a voltage-variable string are. */
export type VoltageVariableKind =
  /** Thresholds in volts (`card.voltage mode`): `usb:4.6;high:4.0;normal:3.5;low:3.2;dead:0`. */
  | "volts"
  /** Whole numbers chosen by state (`hub.set vinbound/voutbound` minutes). */
  | "integer";

export interface VoltageVariableEntry {
  readonly state: VoltageState;
  readonly value: number;
}

const VOLTS = /^\d{1,3}(\.\d{1,6})?$/;
const INTEGER = /^\d{1,9}$/;
/** Longer than any valid string (five states, longest numbers) can be. */
const MAX_LENGTH = 96;

/**
 * A voltage-variable string: `state:value` pairs separated by `;`, each state at most once
 * (`usb:60;high:120;normal:240;low:480;dead:0`). As thresholds it maps the supply voltage to a
 * state; as a setting it picks a value by the current state.
 */
export class VoltageVariable {
  private constructor(
    readonly entries: readonly VoltageVariableEntry[],
    readonly kind: VoltageVariableKind,
    readonly text: string,
  ) {}

  /** Parses `text`, or returns what is wrong with it (for the error reply). */
  static parse(text: string, kind: VoltageVariableKind): VoltageVariable | { problem: string } {
    if (text.length === 0) return { problem: "it is empty" };
    if (text.length > MAX_LENGTH) return { problem: `it is longer than ${MAX_LENGTH} characters` };
    const entries: VoltageVariableEntry[] = [];
    for (const segment of text.split(";")) {
      if (segment === "") return { problem: "it has an empty state:value pair" };
      const colon = segment.indexOf(":");
      if (colon < 0) return { problem: `"${segment}" is not a state:value pair` };
      const state = segment.slice(0, colon);
      const number = segment.slice(colon + 1);
      if (!(VOLTAGE_STATES as readonly string[]).includes(state))
        return { problem: `"${state}" is not one of ${VOLTAGE_STATES.join(", ")}` };
      if (entries.some((e) => e.state === state)) return { problem: `"${state}" is given twice` };
      const pattern = kind === "volts" ? VOLTS : INTEGER;
      if (!pattern.test(number))
        return {
          problem: `"${number}" for ${state} is not ${kind === "volts" ? "a voltage" : "a whole number"}`,
        };
      entries.push({ state: state as VoltageState, value: Number(number) });
    }
    return new VoltageVariable(entries, kind, text);
  }

  /** Builds one from entries (used by tests and presets); throws when they are not valid. */
  static of(entries: readonly VoltageVariableEntry[], kind: VoltageVariableKind): VoltageVariable {
    const parsed = VoltageVariable.parse(entries.map((e) => `${e.state}:${e.value}`).join(";"), kind);
    if (!(parsed instanceof VoltageVariable))
      throw new Error(`invalid voltage-variable entries: ${parsed.problem}`);
    return parsed;
  }

  /** The text as it was given (hosts read back exactly what they set). */
  toString(): string {
    return this.text;
  }

  valueFor(state: string): number | undefined {
    return this.entries.find((e) => e.state === state)?.value;
  }

  /**
   * The state a supply is in, these being thresholds: `usb` whenever the module is on USB power
   * and the thresholds name it; otherwise the state with the highest threshold at or below the
   * voltage (a USB supply lifts the voltage over the `usb` threshold on real carriers, so `usb`
   * can also be reached by voltage); below every threshold, the lowest state.
   */
  stateFor(volts: number, onUsb: boolean): VoltageState {
    if (onUsb && this.valueFor("usb") !== undefined) return "usb";
    let best: VoltageVariableEntry | undefined;
    let lowest = this.entries[0]!;
    for (const entry of this.entries) {
      if (entry.value <= volts && (!best || entry.value > best.value)) best = entry;
      if (entry.value < lowest.value) lowest = entry;
    }
    return (best ?? lowest).state;
  }
}
