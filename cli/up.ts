import type { Command } from "commander";
import { pino } from "pino";
import { SimError } from "../firmware/SimError.js";
import { SystemClock } from "../runtime/SystemClock.js";
import { parseRateLimits } from "../hub/auth/RateLimiter.js";
import { DEFAULT_LISTEN, DEFAULT_TLS_LISTEN, startHub, type RunningHub } from "../runtime/startHub.js";
import { describeHub } from "./hub.js";
import {
  addModuleOptions,
  describeModule,
  startModule,
  type ModuleCommandOptions,
  type RunningModule,
} from "./module.js";
import { onShutdown } from "./shutdown.js";

interface UpOptions extends ModuleCommandOptions {
  hubListen: string;
  hubTlsListen: string;
  hubRateLimit: string;
}

/**
 * Registers the module in the hub's project through the hub's device service (on the hub's
 * clock), as the hub would on the module's first session, so the device API shows it. Data moves
 * between them once the sync capability exists.
 */
async function provision(hub: RunningHub, running: RunningModule): Promise<void> {
  const { module } = running;
  const version = await module.request({ req: "card.version" });
  await hub.services.devices.register({
    deviceUid: module.deviceUid,
    projectUid: hub.credentials.project_uid,
    productUid: hub.credentials.product_uid,
    sku: module.variant.sku,
    firmwareModule: version?.["body"] ? JSON.stringify(version["body"]) : null,
  });
}

export function registerUpCommand(program: Command): void {
  addModuleOptions(
    program
      .command("up")
      .description("run the local hub and one module (the default `npm start`)")
      .option("--hub-listen <HOST:PORT>", "the hub's HTTP API address", DEFAULT_LISTEN)
      .option("--hub-tls-listen <HOST:PORT>", 'the hub\'s HTTPS API address, or "off"', DEFAULT_TLS_LISTEN)
      .option(
        "--hub-rate-limit <LIMITS>",
        'per-account API limits, "7/min,10200/day" or "off"',
        "7/min,10200/day",
      ),
  ).action(async (options: UpOptions) => {
    const hubLog = pino({ level: options.logLevel, base: { service: "cardsim-hub" } }, pino.destination(2));
    const tls = options.hubTlsListen.toLowerCase();
    const hub = await startHub({
      dir: options.dir,
      listen: options.hubListen,
      tlsListen: ["off", "none", "false"].includes(tls) ? false : options.hubTlsListen,
      rateLimits: parseRateLimits(options.hubRateLimit),
      log: hubLog,
      clock: new SystemClock(),
    });
    let running: RunningModule;
    try {
      running = await startModule(options);
    } catch (error) {
      await hub.close();
      if (!(error instanceof SimError)) throw error;
      process.stderr.write(`cardsim up: ${error.message}\n`);
      process.exitCode = 1;
      return;
    }
    onShutdown(async () => {
      await running.close();
      await hub.close();
    });
    await provision(hub, running);
    process.stdout.write(
      [
        describeHub(hub, options.dir),
        describeModule(running),
        `  provisioned in ${hub.credentials.project_uid}`,
        "  (module-to-hub sync is not part of this release: notes stay on the module)",
        "",
      ].join("\n"),
    );
  });
}
