import type { HostTraffic } from "./HostTraffic.js";
import type { ScenarioHost } from "./ScenarioHost.js";
import type { ScenarioI2c } from "./ScenarioI2c.js";
import type { ScenarioPower } from "./ScenarioPower.js";
import type { ScenarioSerial } from "./ScenarioSerial.js";

/** The parts of a scenario `finish()` checks, and how it waits (on the scenario's clock). */
export interface ScenarioParts {
  readonly run: (promise: Promise<unknown>, what: string) => Promise<unknown>;
  readonly serial: ScenarioSerial;
  readonly traffic: HostTraffic;
  readonly i2c: ScenarioI2c | undefined;
  readonly power: ScenarioPower;
  readonly host: ScenarioHost | undefined;
}

/**
 * Everything left that nobody expected once the module has answered what it has: host lines no
 * expectation took, receive overflows, module output the host never read, bytes still in flight,
 * a module still without power. One line each; none means the scenario ended clean.
 */
export async function scenarioProblems(parts: ScenarioParts): Promise<string[]> {
  const problems: string[] = [];
  const settle = async (promise: Promise<unknown>, what: string) => {
    try {
      await parts.run(promise, what);
    } catch (error) {
      problems.push((error as Error).message);
    }
  };
  const { serial, i2c, host } = parts;
  await settle(serial.uart.session.idle(), "the module to answer what it has");
  for (const line of parts.traffic.describeUnexpected()) problems.push(`host line nobody expected: ${line}`);
  for (const episode of serial.unexpectedOverflows()) {
    const lost = episode.reduce((n, o) => n + o.bytes.length, 0);
    problems.push(
      `receive buffer overflow nobody expected: ${lost} bytes lost from byte ${episode[0]!.position}`,
    );
  }
  if (i2c) {
    await settle(i2c.idle(), "the module to answer what it has on I2C");
    if (i2c.unread > 0) problems.push(`${i2c.unread} bytes of module output on I2C that the host never read`);
  }
  if (parts.power.restoring) problems.push("the module is still without power");
  const uart = serial.uart;
  if (uart.inFlight > 0) problems.push(`still in flight: ${uart.describeInFlight()}`);
  if (host && host.unread > 0) problems.push(`${host.unread} bytes from the module that the host never read`);
  return problems;
}
