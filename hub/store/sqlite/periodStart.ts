import type { UsagePeriod } from "../records.js";

/** The start of the UTC period holding `t` (integer epoch seconds, in SQL); weeks start on Monday. */
export function periodStart(period: UsagePeriod, t: string): string {
  switch (period) {
    case "day":
      return `(${t} - ${t} % 86400)`;
    case "week":
      // 1970-01-01 was a Thursday: day d is (d + 3) % 7 days after a Monday.
      return `((${t} / 86400 - (${t} / 86400 + 3) % 7) * 86400)`;
    case "month":
      return `CAST(strftime('%s', ${t}, 'unixepoch', 'start of month') AS INTEGER)`;
  }
}
