import type { Clock, TimerHandle } from "../../core/Clock.js";
import type { ModuleLog } from "../ModuleLog.js";
import type { AttnPin } from "./AttnPin.js";

/** Events that can fire ATTN once armed and enabled (`mode` keywords; `-name` disables). */
export const ATTN_MONITORS = [
  "files",
  "env",
  "signal",
  "connected",
  "location",
  "motion",
  "motionchange",
  "usb",
  "wireless",
  "auxgpio",
] as const;
export type AttnMonitor = (typeof ATTN_MONITORS)[number];

/** Why ATTN fired, as `card.attn` reports it in `files` beside the names of modified files. */
export type AttnReason = AttnMonitor | "timeout" | "watchdog";

/** A notefile as ATTN watches it: the object (a deleted and recreated file is a new one) and its change counter. */
export interface WatchedFileState {
  readonly identity: object;
  readonly ctr: number;
}

/** What ATTN needs to see of the notefiles. */
export interface NotefileView {
  file(name: string): { meta: { ctr: number } } | undefined;
}

export interface AttnOptions {
  readonly clock: Clock;
  readonly pin: AttnPin;
  readonly log: ModuleLog;
  /** ATTN processing disabled (`off:true`, kept in flash across restarts). */
  readonly off?: boolean;
  /** Low time of the watchdog's pulse (ms). */
  readonly watchdogPulseMs?: number;
  /** Delay between the `sleep` reply and ATTN going LOW, so the host can read the reply (ms). */
  readonly sleepDelayMs?: number;
  /** Length of the HIGH glitch when `arm` is sent while already armed (ms). */
  readonly rearmGlitchMs?: number;
}

export const WATCHDOG_MIN_SECONDS = 60;

/**
 * The ATTN pin logic of `card.attn`. The pin idles HIGH; `arm` pulls it LOW until an enabled
 * event or the timeout fires it HIGH again. `sleep` holds it LOW (the host's power switch) for
 * `seconds` while keeping a payload for the host; the watchdog pulses it LOW when the host goes
 * quiet. Events are recorded whether or not ATTN is armed, and cleared by `arm`.
 */
export class Attn {
  /** Notebox config record holding `off`. */
  static readonly OFF_CONFIG_KEY = "attn.off";

  readonly #clock: Clock;
  readonly #pin: AttnPin;
  readonly #log: ModuleLog;
  readonly #watchdogPulseMs: number;
  readonly #sleepDelayMs: number;
  readonly #rearmGlitchMs: number;
  #high = true;
  #initialized = false;
  #off: boolean;
  #armed = false;
  #sleeping = false;
  #monitors = new Set<AttnMonitor>();
  #files: string[] = [];
  #seen = new Map<string, WatchedFileState | undefined>();
  #events: string[] = [];
  #seconds = 0;
  #timeout: TimerHandle | undefined;
  #sleepTimer: TimerHandle | undefined;
  #watchdogSeconds = 0;
  #watchdog: TimerHandle | undefined;
  #pulse: TimerHandle | undefined;
  #payload: string | undefined;

  constructor(options: AttnOptions) {
    this.#clock = options.clock;
    this.#pin = options.pin;
    this.#log = options.log;
    this.#off = options.off ?? false;
    this.#watchdogPulseMs = options.watchdogPulseMs ?? 250;
    this.#sleepDelayMs = options.sleepDelayMs ?? 250;
    this.#rearmGlitchMs = options.rearmGlitchMs ?? 1;
    this.#drive(!this.#off);
  }

  /** Pin level: true = HIGH. */
  get high(): boolean {
    return this.#high;
  }
  get armed(): boolean {
    return this.#armed;
  }
  get off(): boolean {
    return this.#off;
  }
  get sleeping(): boolean {
    return this.#sleeping;
  }
  get monitors(): readonly AttnMonitor[] {
    return ATTN_MONITORS.filter((m) => this.#monitors.has(m));
  }
  get files(): readonly string[] {
    return this.#files;
  }
  /** Arm timeout in seconds (0: none). */
  get seconds(): number {
    return this.#seconds;
  }
  get watchdogSeconds(): number {
    return this.#watchdogSeconds;
  }
  /** Modified watched files, then keywords of other events, since the last `arm`. */
  get events(): readonly string[] {
    return this.#events;
  }

  // --- configuration (card.attn) -------------------------------------------------------------

  enable(monitor: AttnMonitor): void {
    this.#monitors.add(monitor);
  }

  disable(monitor: AttnMonitor): void {
    this.#monitors.delete(monitor);
  }

  disableAll(): void {
    this.#monitors.clear();
    this.#files = [];
    this.#seen.clear();
    this.#stopWatchdog();
  }

  /** Sets the notefiles `files` watches; their current state is the baseline for changes. */
  watchFiles(names: readonly string[], notebox: NotefileView): void {
    this.#files = [...new Set(names)];
    this.#seen = new Map(this.#files.map((name) => [name, stateOf(notebox, name)]));
  }

  /**
   * Arms ATTN: clears the events and pulls the pin LOW until an event or `seconds` (0: never).
   * Arming while armed first disarms (a brief HIGH glitch), as the real module does.
   */
  arm(seconds: number): void {
    if (this.#off) return;
    if (this.#armed) {
      this.#drive(true);
      this.#cancelPulse();
      this.#pulse = this.#clock.setTimer(() => {
        this.#pulse = undefined;
        if (this.#armed) this.#drive(false);
      }, this.#rearmGlitchMs);
    } else {
      this.#drive(false);
    }
    this.#events = [];
    this.#armed = true;
    this.#endSleep();
    this.#schedule(seconds);
  }

  /** Arms if not armed; otherwise only the timeout restarts (no glitch, events kept). */
  rearm(seconds: number): void {
    if (!this.#armed) return this.arm(seconds);
    this.#schedule(seconds);
  }

  /** ATTN HIGH if it was LOW; monitors stay set. */
  disarm(): void {
    this.#armed = false;
    this.#endSleep();
    this.#cancelTimeout();
    this.#cancelPulse();
    if (!this.#off) this.#drive(true);
  }

  /** Watchdog: pulse ATTN LOW when no request arrives for `seconds` (>= 60); 0 stops it. */
  watchdog(seconds: number): void {
    this.#stopWatchdog();
    this.#watchdogSeconds = seconds;
    if (seconds > 0) this.#kickWatchdog();
  }

  /**
   * Puts the host to sleep: after a short delay (the reply must get out first) ATTN goes LOW for
   * `seconds` (<= 0: until an enabled event), keeping `payload` for the host to take back.
   */
  sleep(seconds: number, payload: string | undefined): void {
    if (payload !== undefined) this.#payload = payload;
    if (this.#off) return;
    this.#events = [];
    this.#armed = true;
    this.#sleeping = true;
    this.#cancelTimeout();
    this.#cancelPulse();
    this.#sleepTimer = this.#clock.setTimer(() => {
      this.#sleepTimer = undefined;
      if (this.#armed) this.#drive(false);
    }, this.#sleepDelayMs);
    this.#schedule(seconds);
  }

  /** The sleep payload, handed over once (`start:true`). */
  takePayload(): string | undefined {
    const payload = this.#payload;
    this.#payload = undefined;
    return payload;
  }

  /** `off:true` disables ATTN and drives the pin LOW; `on:true` brings it back, HIGH. */
  setOff(off: boolean): void {
    if (off === this.#off) return;
    this.#off = off;
    this.#armed = false;
    this.#endSleep();
    this.#cancelTimeout();
    this.#cancelPulse();
    this.#drive(!off);
  }

  // --- events (from requests, sync, sensors) -------------------------------------------------

  /** Every request from the host kicks the watchdog. */
  requestReceived(): void {
    if (this.#watchdogSeconds > 0) this.#kickWatchdog();
  }

  /** An enabled event happened (`env` changed, a `signal` arrived, the module `connected`, ...). */
  trigger(reason: AttnMonitor): void {
    if (!this.#monitors.has(reason)) return;
    this.#record(reason);
    this.#fire(reason);
  }

  /** Compares watched notefiles with what was last seen (call after anything that adds notes). */
  noticeFileChanges(notebox: NotefileView): void {
    if (this.#files.length === 0) return;
    const changed: string[] = [];
    for (const name of this.#files) {
      const now = stateOf(notebox, name);
      const before = this.#seen.get(name);
      if (!now) {
        this.#seen.set(name, undefined);
        continue;
      }
      const modified = before ? before.identity !== now.identity || now.ctr > before.ctr : now.ctr > 0;
      this.#seen.set(name, now);
      if (modified) changed.push(name);
    }
    if (changed.length === 0 || !this.#monitors.has("files")) return;
    for (const name of changed) this.#record(name);
    this.#fire("files");
  }

  /** Stops every timer (module restart or shutdown). */
  dispose(): void {
    this.#cancelTimeout();
    this.#cancelPulse();
    this.#stopWatchdog();
    if (this.#sleepTimer) this.#clock.clearTimer(this.#sleepTimer);
    this.#sleepTimer = undefined;
  }

  // --- internals -----------------------------------------------------------------------------

  #record(event: string): void {
    if (!this.#events.includes(event)) this.#events.push(event);
  }

  #fire(reason: AttnReason): void {
    if (!this.#armed || this.#off) return;
    this.#log.debug("ATTN fired", { reason });
    this.#armed = false;
    this.#endSleep();
    this.#cancelTimeout();
    this.#cancelPulse();
    this.#drive(true);
  }

  #schedule(seconds: number): void {
    this.#cancelTimeout();
    this.#seconds = seconds > 0 ? seconds : 0;
    if (this.#seconds === 0) return;
    this.#timeout = this.#clock.setTimer(() => {
      this.#timeout = undefined;
      this.#record("timeout");
      this.#fire("timeout");
    }, this.#seconds * 1000);
  }

  #kickWatchdog(): void {
    if (this.#watchdog) this.#clock.clearTimer(this.#watchdog);
    this.#watchdog = this.#clock.setTimer(() => {
      this.#watchdog = undefined;
      this.#record("watchdog");
      this.#log.warn("ATTN watchdog: no request from the host", { seconds: this.#watchdogSeconds });
      if (!this.#off) {
        // The host gets a reset pulse: LOW, then HIGH; an armed ATTN counts as fired.
        this.#armed = false;
        this.#endSleep();
        this.#cancelTimeout();
        this.#cancelPulse();
        this.#drive(false);
        this.#pulse = this.#clock.setTimer(() => {
          this.#pulse = undefined;
          this.#drive(true);
        }, this.#watchdogPulseMs);
      }
      this.#kickWatchdog();
    }, this.#watchdogSeconds * 1000);
  }

  #stopWatchdog(): void {
    if (this.#watchdog) this.#clock.clearTimer(this.#watchdog);
    this.#watchdog = undefined;
    this.#watchdogSeconds = 0;
  }

  #endSleep(): void {
    this.#sleeping = false;
    if (this.#sleepTimer) this.#clock.clearTimer(this.#sleepTimer);
    this.#sleepTimer = undefined;
  }

  #cancelTimeout(): void {
    if (this.#timeout) this.#clock.clearTimer(this.#timeout);
    this.#timeout = undefined;
  }

  #cancelPulse(): void {
    if (this.#pulse) this.#clock.clearTimer(this.#pulse);
    this.#pulse = undefined;
  }

  #drive(high: boolean): void {
    if (high === this.#high && this.#initialized) return;
    this.#initialized = true;
    this.#high = high;
    this.#pin.write(high);
  }
}

function stateOf(notebox: NotefileView, name: string): WatchedFileState | undefined {
  const file = notebox.file(name);
  return file ? { identity: file, ctr: file.meta.ctr } : undefined;
}
