import { Option, type Command } from "commander";
import type { RateLimits } from "../hub/auth/RateLimiter.js";
import { DEFAULT_LISTEN, DEFAULT_TLS_LISTEN } from "../runtime/hubDefaults.js";
import { describeHub, parseRateLimitOption, startHubFor } from "./hub.js";
import {
  addModuleOptions,
  DEFAULT_MODULE_TCP,
  describeModule,
  firstSyncLine,
  moduleStateLine,
  startModule,
  type ModuleCommandOptions,
  type RunningModule,
} from "./module.js";
import { parseHostPort } from "./options.js";
import { onShutdown } from "./shutdown.js";

interface UpOptions extends ModuleCommandOptions {
  hubListen: string;
  hubTlsListen: string;
  rateLimit?: RateLimits | false;
  hubRateLimit?: RateLimits | false;
}

export function registerUpCommand(program: Command): void {
  addModuleOptions(
    program
      .command("up")
      .description("run the local hub and one module (the default `npm start`)")
      .option("--hub-listen <HOST:PORT>", "the hub's HTTP API address", DEFAULT_LISTEN)
      .option("--hub-tls-listen <HOST:PORT>", 'the hub\'s HTTPS API address, or "off"', DEFAULT_TLS_LISTEN)
      .option(
        "--rate-limit <LIMITS>",
        'the hub\'s API limits per billing account: off (the default), hosted (7/min and 10200/day, as the hosted service), or like "60/min,5000/day"',
        parseRateLimitOption,
      )
      .addOption(new Option("--hub-rate-limit <LIMITS>").argParser(parseRateLimitOption).hideHelp()),
  ).action(async (options: UpOptions) => {
    const [{ createLogger }, { SystemClock }] = await Promise.all([
      import("./logging.js"),
      import("../runtime/SystemClock.js"),
    ]);
    const hubLog = createLogger({ level: options.logLevel, format: options.logFormat, name: "hub" });
    const hub = await startHubFor(
      {
        dir: options.dir,
        listen: options.hubListen,
        tlsListen: options.hubTlsListen,
        rateLimits: options.rateLimit ?? options.hubRateLimit ?? false,
        log: hubLog,
        clock: new SystemClock(),
      },
      { listen: "--hub-listen", tlsListen: "--hub-tls-listen" },
    );
    let running: RunningModule;
    try {
      // The module always serves TCP here: `cardsim req` talks to it there.
      // Linked to the hub in this process; its first session provisions it into the hub's project.
      running = await startModule({
        ...options,
        tcp: options.tcp ?? parseHostPort(DEFAULT_MODULE_TCP),
        linkedHub: { inProcess: hub.services.sync, product: hub.credentials.product_uid },
      });
      await running.module.sync.idle();
    } catch (error) {
      await hub.close();
      throw error;
    }
    onShutdown(
      async () => {
        await running.close();
        await hub.close();
      },
      () =>
        `cardsim up: stopped module ${running.module.deviceUid} and the hub at ${hub.url}; ` +
        `the hub's state is in ${options.dir}, ${moduleStateLine(running)}`,
    );
    process.stdout.write(
      [
        describeHub(hub, options.dir),
        describeModule(running),
        await firstSyncLine(running, `in ${hub.credentials.project_uid}`),
        "",
      ].join("\n"),
    );
  });
}
