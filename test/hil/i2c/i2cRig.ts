import { I2cTarget, type I2cTargetOptions } from "../../../firmware/host/I2cTarget.js";
import { FakeClock } from "../../../runtime/FakeClock.js";
import type { I2cHardwareProfile } from "../../../hil/i2c/I2cHardwareProfile.js";
import { SimI2cBus } from "../../../hil/i2c/SimI2cBus.js";
import { bootTestModule } from "../../support/moduleFixture.js";
import { noteI2cHost, type NoteI2cHostOptions } from "./noteI2cHost.js";

/** A module behind an I2C target on the software bus, and a host on the same bus. */
export async function i2cRig(
  options: {
    profile?: I2cHardwareProfile;
    target?: I2cTargetOptions;
    host?: NoteI2cHostOptions;
    binaryMax?: number;
  } = {},
) {
  const clock = new FakeClock();
  const t = await bootTestModule({ clock, ...(options.binaryMax ? { binaryMax: options.binaryMax } : {}) });
  const target = new I2cTarget(t.module, options.target);
  const bus = new SimI2cBus({ clock, ...(options.profile ? { profile: options.profile } : {}) });
  await bus.attach(target);
  const host = noteI2cHost(bus, clock, { address: target.address, ...options.host });
  return { t, clock, target, bus, host };
}
