import type { ServerResponse } from "node:http";
import type { Clock } from "../core/Clock.js";
import type { Module } from "../firmware/Module.js";
import type { SimPowerSource } from "../firmware/PowerSource.js";
import type { World } from "../firmware/world/World.js";
import type { SimulatedModule } from "./SimulatedModule.js";

/** How often the supply, the energy used and the position are sampled (real time). */
const SAMPLE_MS = 500;
/** The newest samples, trace lines and sessions kept for a page that opens later. */
const KEEP_SAMPLES = 3600;
const KEEP_TRACE = 300;
const KEEP_SESSIONS = 200;

export interface MonitorSample {
  atMs: number;
  volts: number;
  usb: boolean;
  mah: number;
  lat: number | null;
  lon: number | null;
}

export interface MonitorTrace {
  atMs: number;
  request: string;
  reply: string | null;
}

export interface MonitorSession {
  why: string;
  started: number;
  ended: number;
  ok: boolean;
  error: string | null;
  bytes: number;
  held: boolean;
}

function keep<T>(list: T[], item: T, max: number): void {
  list.push(item);
  if (list.length > max) list.splice(0, list.length - max);
}

/**
 * What the module page shows of a running module (`cardsim up`, `cardsim module --control`): its
 * host lines and replies, its sessions, and samples of its supply voltage, the energy it used and
 * its position; kept for a page that opens later, and sent as server-sent events to open ones.
 */
export class ModuleMonitor {
  readonly #samples: MonitorSample[] = [];
  readonly #trace: MonitorTrace[] = [];
  readonly #sessions: MonitorSession[] = [];
  readonly #streams = new Set<ServerResponse>();
  readonly #stops: (() => void)[] = [];

  constructor(
    private readonly simulated: SimulatedModule,
    private readonly world: World,
    private readonly power: SimPowerSource,
    private readonly clock: Clock,
  ) {
    let unhook = this.#hook(simulated.module);
    // A module that lost power and booted again is a new one: the trace follows it.
    this.#stops.push(
      simulated.on({
        boot: (module) => {
          unhook();
          unhook = this.#hook(module);
        },
      }),
      () => unhook(),
    );
    this.sample();
    const timer = setInterval(() => this.sample(), SAMPLE_MS);
    timer.unref();
    this.#stops.push(() => clearInterval(timer));
  }

  /** Follows a module's host lines and sessions; returns the function that stops it. */
  #hook(module: Module): () => void {
    const stops = [
      module.onExchange((request, reply) => {
        const item = { atMs: this.clock.now(), request, reply: reply ?? null };
        keep(this.#trace, item, KEEP_TRACE);
        this.#send("trace", item);
      }),
      module.sync.onSession((o) => {
        const item: MonitorSession = {
          why: o.why,
          started: o.started,
          ended: o.ended,
          ok: o.ok,
          error: o.error ?? null,
          bytes: o.traffic.bytes_sent + o.traffic.bytes_received,
          held: o.held,
        };
        keep(this.#sessions, item, KEEP_SESSIONS);
        this.#send("session", item);
      }),
    ];
    return () => stops.forEach((stop) => stop());
  }

  /** Takes a sample now (the timer takes one every SAMPLE_MS). */
  sample(): MonitorSample {
    const position = this.world.position();
    const sample: MonitorSample = {
      atMs: this.clock.now(),
      volts: this.power.volts,
      usb: this.power.onUsb,
      mah: this.simulated.module.energy.report().mah,
      lat: position?.lat ?? null,
      lon: position?.lon ?? null,
    };
    keep(this.#samples, sample, KEEP_SAMPLES);
    this.#send("sample", sample);
    return sample;
  }

  /** Everything kept, and the module's settings in force (mode, schedule). */
  async state(): Promise<Record<string, unknown>> {
    const module = this.simulated.module;
    const hub = await module.request({ req: "hub.get" });
    return {
      device: module.deviceUid,
      sku: module.variant.sku,
      hub,
      samples: this.#samples,
      trace: this.#trace,
      sessions: this.#sessions,
    };
  }

  /** Sends what happens to `response` as server-sent events until it closes. */
  stream(response: ServerResponse): void {
    response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      connection: "close",
    });
    response.write("event: hello\ndata: {}\n\n");
    this.#streams.add(response);
    response.on("close", () => this.#streams.delete(response));
  }

  #send(kind: string, data: unknown): void {
    if (this.#streams.size === 0) return;
    const text = `event: ${kind}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const response of this.#streams) response.write(text);
  }

  close(): void {
    for (const stop of this.#stops.splice(0)) stop();
    for (const response of this.#streams) response.end();
    this.#streams.clear();
  }
}
