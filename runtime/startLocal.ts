import type { Clock } from "../core/Clock.js";
import { ModuleLinkServer } from "../hil/ModuleLinkServer.js";
import { openFlashStore } from "../hil/storage/openFlashStore.js";
import { SimulatedModule, type SimulatedModuleOptions } from "./SimulatedModule.js";
import { startHub, type RunningHub, type StartHubOptions } from "./startHub.js";
import { SystemClock } from "./SystemClock.js";

export interface StartLocalOptions {
  /** State directory of the hub (hub.db, tls/, credentials.json). */
  readonly dir: string;
  /** The hub's options besides its directory and clock (listen, tlsListen, rateLimits, log). */
  readonly hub?: Omit<StartHubOptions, "dir" | "clock">;
  /** The module's options besides its clock; its flash is memory unless `flashDir` is given. */
  readonly module?: Omit<SimulatedModuleOptions, "clock" | "flash"> & {
    /** Keep the module's flash in this directory (locked while the module runs). */
    readonly flashDir?: string;
    /** Serve the module's serial line protocol on TCP (port 0 picks one); false for none. */
    readonly tcp?: { readonly host: string; readonly port: number } | false;
  };
  /** One clock for both (default: the system clock). */
  readonly clock?: Clock;
}

/** A local hub and one module registered in its project: what `cardsim up` runs. */
export interface LocalSetup {
  readonly hub: RunningHub;
  readonly module: SimulatedModule;
  /** The module's TCP line server, unless `module.tcp` was false. */
  readonly tcp: ModuleLinkServer | undefined;
  /** Stops the module (its flash closed) and then the hub. */
  close(): Promise<void>;
}

/**
 * Starts a hub and a module and registers the module as a device of the hub's project, through
 * the hub's device service on the hub's clock, as the hub does at a module's first session.
 */
export async function startLocal(options: StartLocalOptions): Promise<LocalSetup> {
  const clock = options.clock ?? new SystemClock();
  const hub = await startHub({ ...options.hub, dir: options.dir, clock });
  const { flashDir, tcp: tcpOption, ...moduleOptions } = options.module ?? {};
  let module: SimulatedModule | undefined;
  let tcp: ModuleLinkServer | undefined;
  try {
    module = await SimulatedModule.boot({
      ...moduleOptions,
      clock,
      ...(flashDir ? { flash: { store: await openFlashStore(flashDir) } } : {}),
    });
    const version = await module.module.request({ req: "card.version" });
    await hub.services.devices.register({
      deviceUid: module.module.deviceUid,
      projectUid: hub.credentials.project_uid,
      productUid: hub.credentials.product_uid,
      sku: module.module.variant.sku,
      firmwareModule: version?.["body"] ? JSON.stringify(version["body"]) : null,
    });
    if (tcpOption !== false) {
      const address = tcpOption ?? { host: "127.0.0.1", port: 0 };
      tcp = await ModuleLinkServer.listen(module.lineHandler(), address.host, address.port);
    }
  } catch (error) {
    await module?.close().catch(() => undefined);
    await hub.close();
    throw error;
  }
  const running = module;
  return {
    hub,
    module: running,
    tcp,
    async close() {
      await tcp?.close();
      await running.close();
      await hub.close();
    },
  };
}
