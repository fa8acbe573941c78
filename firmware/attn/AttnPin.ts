/**
 * The module's ATTN output toward the host, as a port: a GPIO line on a rig, a simulated line in
 * tests, nothing at all when no host listens. HIGH is `true`.
 */
export interface AttnPin {
  write(high: boolean): void;
}

/** ATTN with nothing wired to it. */
export const unconnectedAttnPin: AttnPin = { write() {} };
