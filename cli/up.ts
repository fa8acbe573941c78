import { Option, type Command } from "commander";
import type { RateLimits } from "../hub/auth/RateLimiter.js";
import { DEFAULT_LISTEN, DEFAULT_TLS_LISTEN } from "../runtime/hubDefaults.js";
import { flashDirectory } from "./flash.js";
import { describeHub, hubFailure, hubStartOptions, logHubActivity, parseRateLimitOption } from "./hub.js";
import { STORE_HELP } from "./hubStore.js";
import {
  addModuleOptions,
  cliFailure,
  DEFAULT_MODULE_TCP,
  describeModule,
  firstSyncLine,
  moduleRigOptions,
  moduleStateLine,
  runningModule,
  type ModuleCommandOptions,
} from "./module.js";
import { parseHostPort } from "./options.js";
import { onShutdown } from "./shutdown.js";

interface UpOptions extends ModuleCommandOptions {
  store?: string;
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
      .option("--store <URL>", STORE_HELP)
      .option("--hub-listen <HOST:PORT>", "the hub's HTTP API address", DEFAULT_LISTEN)
      .option("--hub-tls-listen <HOST:PORT>", 'the hub\'s HTTPS API address, or "off"', DEFAULT_TLS_LISTEN)
      .option(
        "--rate-limit <LIMITS>",
        'the hub\'s API limits per billing account: off (the default), hosted (7/min and 10200/day, as the hosted service), or like "60/min,5000/day"',
        parseRateLimitOption,
      )
      .addOption(new Option("--hub-rate-limit <LIMITS>").argParser(parseRateLimitOption).hideHelp()),
  ).action(async (options: UpOptions) => {
    const [{ createLogger }, { SystemClock }, { startLocal }] = await Promise.all([
      import("../runtime/logging.js"),
      import("../runtime/SystemClock.js"),
      import("../runtime/startLocal.js"),
    ]);
    const flags = { listen: "--hub-listen", tlsListen: "--hub-tls-listen" };
    const hubLog = createLogger({ level: options.logLevel, format: options.logFormat, name: "hub" });
    const hubOptions = await hubStartOptions(
      {
        dir: options.dir,
        ...(options.store !== undefined ? { store: options.store } : {}),
        listen: options.hubListen,
        tlsListen: options.hubTlsListen,
        rateLimits: options.rateLimit ?? options.hubRateLimit ?? false,
        log: hubLog,
      },
      flags,
    );
    // The module always serves TCP here: `cardsim req` talks to it there. It is linked to the hub
    // in this process, and its first session (awaited) provisions it into the hub's project.
    const rig = await moduleRigOptions(options);
    const local = await startLocal({
      dir: options.dir,
      clock: new SystemClock(),
      hub: hubOptions,
      module: { ...rig, tcp: options.tcp ?? parseHostPort(DEFAULT_MODULE_TCP) },
      onHub: (started) => logHubActivity(started, hubLog),
    }).catch((error: unknown) => {
      throw cliFailure(hubFailure(error, flags));
    });
    if (local.rig.logger) local.rig.logger.level = options.logLevel;
    const { hub } = local;
    const running = runningModule(local.rig, flashDirectory(options), "in process");
    onShutdown(
      () => local.close(),
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
