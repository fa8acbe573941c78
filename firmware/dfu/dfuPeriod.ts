/**
 * `_dfu_period`: `DDDDDDD,HH,N`, the days of the week downloads may run (Sunday first, `1` for a
 * day that may), the local hour the window opens and how many hours it stays open (a window may
 * run past midnight into the next day). Anything else is not a period (and restricts nothing).
 */
export interface DfuPeriod {
  readonly days: readonly boolean[];
  readonly hour: number;
  readonly hours: number;
}

const PERIOD = /^([01]{7}),(\d{1,2}),(\d{1,3})$/;

export function parseDfuPeriod(text: string): DfuPeriod | undefined {
  const m = PERIOD.exec(text.replace(/\s+/g, ""));
  if (!m) return undefined;
  const hour = Number(m[2]);
  const hours = Number(m[3]);
  if (hour > 23) return undefined;
  return { days: [...m[1]!].map((c) => c === "1"), hour, hours };
}

/** Whether `localSeconds` (epoch seconds shifted into local time) falls in the window. */
export function inDfuPeriod(period: DfuPeriod, localSeconds: number): boolean {
  if (period.hours >= 24 * 7) return period.days.some(Boolean);
  const day = Math.floor(localSeconds / 86_400);
  // Windows opening today or on one of the previous days may still be open.
  for (let back = 0; back <= Math.ceil(period.hours / 24); back++) {
    const opening = day - back;
    // 1970-01-01 was a Thursday: day 0 is weekday 4 counting from Sunday.
    const weekday = (((opening + 4) % 7) + 7) % 7;
    if (!period.days[weekday]) continue;
    const opens = opening * 86_400 + period.hour * 3600;
    if (localSeconds >= opens && localSeconds < opens + period.hours * 3600) return true;
  }
  return false;
}
