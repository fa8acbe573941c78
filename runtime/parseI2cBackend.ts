import { I2C_PROFILES } from "../hil/i2c/I2cHardwareProfile.js";
import type { BoardRigOptions } from "../boards/buildBoard.js";

/**
 * Reads the `--i2c BACKEND` command-line value into board options:
 * `sim[:ideal|bsc|pico]`, `pigpiod[:HOST[:PORT]]`, `rp2040:DEVICE`, or `none`.
 */
export function parseI2cBackend(
  spec: string,
): Pick<BoardRigOptions, "i2c" | "simProfile" | "pigpiod" | "bridgePath"> {
  const [kind = "", ...rest] = spec.split(":");
  const arg = rest.join(":");
  switch (kind) {
    case "none":
      return { i2c: "none" };
    case "sim":
      if (arg && !I2C_PROFILES[arg])
        throw new Error(`--i2c sim:${arg}: unknown profile; one of ${Object.keys(I2C_PROFILES).join(", ")}`);
      return { i2c: "sim", ...(arg ? { simProfile: arg } : {}) };
    case "pigpiod": {
      const [host, port] = rest;
      if (port !== undefined && !/^\d+$/.test(port))
        throw new Error(`--i2c ${spec}: the port must be a number`);
      return {
        i2c: "pigpiod-bsc",
        pigpiod: { ...(host ? { host } : {}), ...(port ? { port: Number(port) } : {}) },
      };
    }
    case "rp2040":
      if (!arg)
        throw new Error("--i2c rp2040:DEVICE needs the bridge's serial device (e.g. rp2040:/dev/ttyACM0)");
      return { i2c: "rp2040-bridge", bridgePath: arg };
    default:
      throw new Error(`--i2c ${spec}: one of sim[:PROFILE], pigpiod[:HOST[:PORT]], rp2040:DEVICE, none`);
  }
}
