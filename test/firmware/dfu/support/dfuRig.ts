import { SimHubLink } from "../../../../firmware/radio/SimHubLink.js";
import type { DfuOptions } from "../../../../firmware/dfu/DfuAgent.js";
import type { VariantName } from "../../../../firmware/Variant.js";
import { FakeClock } from "../../../../runtime/FakeClock.js";
import { bootDfuModule } from "./dfuModule.js";
import { MockDfuHub } from "./MockDfuHub.js";

/** Bytes of a host image: a pattern that differs at every offset a chunk might start. */
export function hostImage(length: number, seed = 7): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** A module linked to the scripted DFU hub on a fake clock. */
export async function dfuRig(
  options: { variant?: VariantName; powerLoss?: boolean; dfu?: DfuOptions; seed?: number } = {},
) {
  const clock = new FakeClock();
  const hub = new MockDfuHub();
  const link = new SimHubLink((r) => hub.respond(r), { clock });
  const t = await bootDfuModule({ link, clock, ...options });
  return Object.assign(t, { hub, link });
}
