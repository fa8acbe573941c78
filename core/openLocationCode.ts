/**
 * Open Location Code ("plus code"), the form the hub shows a GPS position in (the session's
 * `where`, an event's `where_olc`): ten digits, a `+` after the eighth, for a cell of 1/8000 of a
 * degree (about 14 m). Written from the public specification.
 */

const DIGITS = "23456789CFGHJMPQRVWX";
/** Cells per degree at ten digits (the last pair's place value is 1/8000 of a degree). */
const PER_DEGREE = 8000;
const PAIRS = 5;

/** The ten-digit code of a position (latitude clipped to ±90, longitude wrapped into [-180, 180)). */
export function openLocationCode(latitude: number, longitude: number): string {
  const lat = Math.min(90, Math.max(-90, latitude));
  let lon = ((((longitude + 180) % 360) + 360) % 360) - 180;
  if (!Number.isFinite(lon)) lon = 0;
  // Rounded to a millionth of a cell first, so that 0.1 + 0.2 style errors never move a digit.
  const cells = (value: number) => Math.floor(Math.round(value * PER_DEGREE * 1e6) / 1e6);
  // The north pole belongs to the cell below it.
  let y = Math.min(cells(lat + 90), 180 * PER_DEGREE - 1);
  let x = cells(lon + 180);
  const pairs: string[] = [];
  for (let i = 0; i < PAIRS; i++) {
    pairs.unshift(DIGITS[y % 20]! + DIGITS[x % 20]!);
    y = Math.floor(y / 20);
    x = Math.floor(x / 20);
  }
  const code = pairs.join("");
  return `${code.slice(0, 8)}+${code.slice(8)}`;
}
