/**
 * The radio part of a session's context (`SessionContext.radio`): what the module's radio saw
 * when the session opened. The module builds it from its radio state and the hub copies it into
 * the session record and the `session.begin` event, both with `sessionRadio` (one list of fields).
 */
// A type, not an interface: it is JSON as it stands (an interface has no index signature).
export type SessionRadio = {
  /** Radio access technology, as `card.wireless` reports it (`lte`, `catm`, `nbiot`, `gsm`, `wifi`...). */
  readonly rat: string;
  /** The bearer sessions record (`LTE Cat-1`, `WiFi 2.4GHz`...). */
  readonly bearer: string;
  readonly rssi: number;
  readonly rsrp: number;
  readonly rsrq: number;
  readonly sinr: number;
  /** Signal bars, 0 to 4. */
  readonly bars: number;
};

/** The signal measurements of `SessionRadio`, in the order records list them. */
const MEASUREMENTS = ["rssi", "rsrp", "rsrq", "sinr", "bars"] as const;

/** Exactly the fields of `SessionRadio` of `source` (a radio state, a session context's radio). */
export function sessionRadio(source: SessionRadio): SessionRadio {
  return {
    rat: source.rat,
    bearer: source.bearer,
    rssi: source.rssi,
    rsrp: source.rsrp,
    rsrq: source.rsrq,
    sinr: source.sinr,
    bars: source.bars,
  };
}

/** The field readers `readSessionRadio` needs (protocol/fields.ts `Fields`; named here, not imported: sessionMessages.ts imports this file). */
interface RadioFields {
  string(key: string, options: { max: number }): string;
  number(key: string): number;
}

/** Checks a message's `SessionRadio` field by field (the fault names the field). */
export function readSessionRadio(f: RadioFields): void {
  f.string("rat", { max: 64 });
  f.string("bearer", { max: 64 });
  for (const key of MEASUREMENTS) f.number(key);
}
