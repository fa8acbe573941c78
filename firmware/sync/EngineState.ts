import type { SignalRecord } from "../../protocol/messages.js";
import { HubLinkError } from "../radio/HubLink.js";
import { SyncFailure, type SyncHost, type SyncStatus } from "./syncTypes.js";

/** A session held open (continuous mode): its token, its encryption, the notefiles the hub said changed. */
export interface HeldSession {
  readonly token: string;
  readonly secure: boolean;
  readonly files: string[];
}

/**
 * A session ticket the hub gave (docs/sync-protocol.md, "Resumed sessions"), kept in RAM only: a
 * restart proves the key again. It is presented only to the hub, device, product and key it was
 * given for, until `until` (the module's clock).
 */
export interface SessionTicket {
  readonly text: string;
  readonly until: number;
  readonly hub: string;
  readonly device: string;
  readonly product: string;
  readonly publicKey: string;
}

/**
 * What the sync engine's parts share in RAM: the status it reports, the session held open, the
 * signals received, the deletions every `close` confirms. A restart starts over from the flash.
 */
export class EngineState {
  readonly module: SyncHost;
  status = "idle {disconnected}";
  connected = false;
  requestedAt: number | undefined;
  completedAt: number | undefined;
  alert = false;
  error: string | undefined;
  held: HeldSession | undefined;
  disposed = false;
  /** Notefiles the hub said it deleted, deleted here since the session opened: every `close` confirms them. */
  deletedForHub: readonly string[] = [];
  /** Signals received and not yet taken by `hub.signal`, oldest first; the last sequence number seen. */
  readonly signals: SignalRecord[] = [];
  signalSeq = 0;
  /** The hub's session ticket, presented at the next `open` instead of a hello and a signature. */
  ticket: SessionTicket | undefined;

  constructor(module: SyncHost) {
    this.module = module;
  }

  /** What `hub.sync.status`, `hub.status` and `card.status` report. */
  report(running: boolean): SyncStatus {
    // Member by member in this order (no spreads: on Node 20 a spread that adds members is slow).
    const report: { -readonly [K in keyof SyncStatus]?: SyncStatus[K] } = {
      status: this.status,
      running,
      connected: this.connected,
    };
    if (this.requestedAt !== undefined) report.requestedAt = this.requestedAt;
    if (this.completedAt !== undefined) report.completedAt = this.completedAt;
    report.alert = this.alert;
    if (this.error !== undefined) report.error = this.error;
    return report as SyncStatus;
  }

  /** What a `close` adds: the deletions made for the hub in this session, when there were any. */
  confirmDeleted(): { deleted?: readonly string[] } {
    return this.deletedForHub.length > 0 ? { deleted: this.deletedForHub } : {};
  }

  /** Takes the signals the hub sent that are new (a repeat is dropped); ATTN tells the host. */
  receiveSignals(signals: readonly SignalRecord[]): void {
    for (const signal of signals) {
      if (signal.seq <= this.signalSeq) continue;
      this.signalSeq = signal.seq;
      this.signals.push(signal);
      this.module.attn.trigger("signal");
    }
  }

  /** A session completed: the alert clears and the status says whether the session stays open. */
  completed(): void {
    this.completedAt = this.module.clock.now();
    this.alert = false;
    this.error = undefined;
    this.status = this.held ? "connected (session open) {connected}" : "completed {sync-end}";
  }

  /** A sync failed: the alert is set and the status carries `{sync-error}` with the reason. */
  fail(error: unknown): void {
    const module = this.module;
    this.alert = true;
    if (error instanceof SyncFailure) this.error = error.message;
    else if (error instanceof HubLinkError) this.error = `${error.message} {sync-error} {${error.failure}}`;
    else {
      // The module lost power or restarted mid-sync: this engine is gone with its RAM.
      if (this.disposed) return;
      module.log.error("sync failed", { error: String((error as Error)?.stack ?? error) });
      this.error = `sync failed: ${String((error as Error)?.message ?? error)}`;
    }
    this.status = `${this.error}${this.error.includes("{sync-error}") ? "" : " {sync-error}"}`;
  }
}
