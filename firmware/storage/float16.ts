/**
 * IEEE 754 binary16 ("half", template hint 12.1). Node 20 has no Float16Array, so the
 * conversion is written out: round to nearest, ties to even, overflow to infinity.
 */
const f32 = new Float32Array(1);

export function toFloat16Bits(value: number): number {
  // Rounds from the double directly: going through float32 first could round twice.
  if (Number.isNaN(value)) return 0x7e00;
  const sign = value < 0 || Object.is(value, -0) ? 0x8000 : 0;
  const a = Math.abs(value);
  if (a === Infinity) return sign | 0x7c00;
  if (a === 0) return sign;
  // Smallest subnormal is 2^-24; values are multiples of it below 2^-14.
  if (a < 2 ** -14) {
    const q = roundHalfEven(a / 2 ** -24);
    return sign | q; // q may reach 1024, which is exactly the smallest normal's bit pattern
  }
  let exp = Math.floor(Math.log2(a));
  // log2 can be off by one near powers of two
  if (2 ** exp > a) exp--;
  else if (2 ** (exp + 1) <= a) exp++;
  let mant = roundHalfEven((a / 2 ** exp - 1) * 1024);
  if (mant === 1024) {
    mant = 0;
    exp++;
  }
  if (exp > 15) return sign | 0x7c00;
  return sign | ((exp + 15) << 10) | mant;
}

export function fromFloat16Bits(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const mant = bits & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 31) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** The value a float16 field holds after storing `value`. */
export function roundFloat16(value: number): number {
  return fromFloat16Bits(toFloat16Bits(value));
}

/** The value a float32 field holds after storing `value`. */
export function roundFloat32(value: number): number {
  f32[0] = value;
  return f32[0]!;
}

function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}
