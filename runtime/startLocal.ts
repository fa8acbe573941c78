import type { Clock } from "../core/Clock.js";
import type { ModuleLinkServer } from "../hil/ModuleLinkServer.js";
import { assembleModule, type ModuleRig, type ModuleRigOptions, type RigAddress } from "./assembleModule.js";
import type { SimulatedModule } from "./SimulatedModule.js";
import { startHub, type RunningHub, type StartHubOptions } from "./startHub.js";
import { SystemClock } from "./SystemClock.js";

export interface StartLocalOptions {
  /** State directory of the hub (hub.db, tls/, credentials.json). */
  readonly dir: string;
  /** The hub's options besides its directory and clock (listen, tlsListen, rateLimits, log). */
  readonly hub?: Omit<StartHubOptions, "dir" | "clock">;
  /**
   * The module's rig besides its clock and hub (runtime/assembleModule): its seed (a random
   * identity without one, kept in its flash), flash, board, supply, radio, world and links. Its
   * flash is memory unless `flash` or `flashDir` says otherwise.
   */
  readonly module?: Omit<ModuleRigOptions, "clock" | "hub" | "tcp"> & {
    /** Keep the module's flash in this directory (locked while the module runs). */
    readonly flashDir?: string;
    /** Serve the module's serial line protocol on TCP (port 0, the default, picks one); false for none. */
    readonly tcp?: RigAddress | false;
  };
  /** One clock for both (default: the system clock). */
  readonly clock?: Clock;
  /** Called once the hub runs, before the module starts (to follow the hub's feed from its first session). */
  readonly onHub?: (hub: RunningHub) => unknown;
}

/** A local hub and one module linked to it: what `cardsim up` runs. */
export interface LocalSetup {
  readonly hub: RunningHub;
  readonly module: SimulatedModule;
  /** The module's TCP line server, unless `module.tcp` was false. */
  readonly tcp: ModuleLinkServer | undefined;
  /** The module and everything around it (board, links, world, supply, radio). */
  readonly rig: ModuleRig;
  /** Stops the module (its flash closed) and then the hub. */
  close(): Promise<void>;
}

/**
 * Starts a hub and a module linked to it in this process, with the hub's ProductUID as the
 * module's until its host sets one. The module opens a session at once, as a real one does at
 * power-on: that first session provisions it into the hub's project. Resolves once that session
 * has ended (`module.module.sync.status()` says how it went).
 */
export async function startLocal(options: StartLocalOptions): Promise<LocalSetup> {
  const clock = options.clock ?? new SystemClock();
  const hub = await startHub({ ...options.hub, dir: options.dir, clock });
  await options.onHub?.(hub);
  const { flashDir, tcp, ...moduleOptions } = options.module ?? {};
  let rig: ModuleRig;
  try {
    rig = await assembleModule({
      ...moduleOptions,
      clock,
      ...(flashDir ? { flash: { dir: flashDir } } : {}),
      ...(tcp !== false ? { tcp: tcp ?? { host: "127.0.0.1", port: 0 } } : {}),
      hub: { inProcess: hub.services.sync, product: hub.credentials.product_uid },
      syncAtStart: true,
    });
  } catch (error) {
    await hub.close();
    throw error;
  }
  try {
    await rig.simulated.module.sync.idle();
  } catch (error) {
    await rig.close().catch(() => undefined);
    await hub.close();
    throw error;
  }
  const running = rig;
  return {
    hub,
    module: running.simulated,
    tcp: running.tcp,
    rig: running,
    async close() {
      await running.close();
      await hub.close();
    },
  };
}
