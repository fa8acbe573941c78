// The npm `cobs` package (test oracle only) ships no types.
declare module "cobs" {
  const cobs: { encode(data: Buffer, zeroFrame?: boolean): Buffer; decode(data: Buffer): Buffer };
  export default cobs;
}
