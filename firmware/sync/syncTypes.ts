import type { JsonObject } from "../../core/json.js";
import type { OpenReply, ProtocolReply, SessionEnergy, SessionTrigger } from "../../protocol/messages.js";
import type { SyncMode } from "../config/HubConfig.js";
import type { ModuleCore } from "../ModuleCore.js";
import type { LocationReport } from "../sensors/Sensors.js";
import type { ConnectFailure } from "./PenaltyBox.js";
import type { Traffic } from "./SyncState.js";

/*
 * What the sync engine's parts and its users share: the module's side of a sync (`SyncHost`),
 * requests, status, sessions, steps and outcomes. `SyncEngine.ts` exports all of it again.
 */

/** The module's Ed25519 key pair, base64 (made at first boot, kept by every reset). */
export interface KeyRecord {
  readonly private: string;
  readonly public: string;
}

/** What the module keeps of its identity: its DeviceUID, and its key pair once it has one. */
export interface IdentityRecord {
  readonly device: string;
  readonly key?: KeyRecord;
}

/** What a sync needs of the module besides `ModuleCore`. */
export interface SyncHost extends ModuleCore {
  /** Runs `task` in its turn among the module's writers, as one transaction. */
  exclusive<T>(task: () => T | Promise<T>): Promise<T>;
  /** The module's identity record (device UID and keys). */
  identity(): IdentityRecord;
  /** The module's `card.version` body (the session context's firmware). */
  firmware(): JsonObject;
  /** Notefiles requests asked to be synced now (`note.add sync:true` ...), until a sync takes them. */
  syncRequests(): ReadonlySet<string>;
  takeSyncRequests(): string[];
  /** Where the module is, for the session's context. */
  locationReport(): LocationReport;
  /** A session carried the triangulation scans (`card.triangulate on:false` waits for motion now). */
  triangulationSent(): void;
  /** The ProductUID to sync with until the host sets one. */
  readonly defaultProduct: string | undefined;
  /** The energy model's counters for the session record (absent: none are sent). */
  energyFields?(): SessionEnergy | undefined;
}

export interface SyncRequest {
  readonly why: SessionTrigger;
  /** Only download (`hub.sync in:true`) or only upload (`out:true`). */
  readonly in?: boolean;
  readonly out?: boolean;
  /**
   * A change the asker keeps in flash with the session (the schedule's cadence): made in the
   * session's first turn, or in a turn of its own when the session ends without one.
   */
  readonly keep?: () => void;
}

/** What `hub.sync.status`, `hub.status` and `card.status` report. */
export interface SyncStatus {
  /** Text with the module's `{...}` status token. */
  readonly status: string;
  readonly running: boolean;
  /** A session is open now (held open in continuous mode, or a sync in progress). */
  readonly connected: boolean;
  /** Clock ms of the last explicit request, of the last completed sync. */
  readonly requestedAt?: number;
  readonly completedAt?: number;
  /** The last sync failed. */
  readonly alert: boolean;
  /** Why the last sync failed, as the module reports it. */
  readonly error?: string;
}

/** A sync that failed for a reason the module reports (`{sync-error}`, `{auth}` ...). */
export class SyncFailure extends Error {}

/** What the sync schedule decides for the engine: the mode in force, whether a sync may start. */
export interface SyncPolicy {
  /** The mode in force (temporary continuous mode included). */
  mode(): SyncMode;
  /** A sync that notefiles asked for (`sync:true`) may start now (no penalty box holds it). */
  mayStart(): boolean;
}

/** A session with the hub, open now: what session steps and online requests talk through. */
export interface OpenSession {
  readonly why: SessionTrigger;
  /** The connection is encrypted (secure notefiles and images move only then). */
  readonly secure: boolean;
  /** The hub's reply to this session's `open` (none for a session held open from before). */
  readonly opened?: OpenReply;
  /**
   * One exchange in the session: `v` and the session token are added, the traffic is counted,
   * and a reply with `err` throws a `SyncFailure`.
   */
  exchange<R extends ProtocolReply>(request: { readonly type: string } & JsonObject): Promise<R>;
}

/**
 * Work that takes part in every sync session, after the notefiles moved and before the session
 * closes (a firmware download, a report). A step that throws fails the session.
 */
export interface SessionStep {
  readonly name: string;
  /** Fields the step adds to the session's `open` (asked for just before it is sent). */
  open?(): JsonObject | undefined;
  /**
   * True when the step, run on an open reply that offers it nothing (no firmware image), sends
   * nothing: the open may then carry the session's close. A step without it is never quiet.
   */
  quiet?(): boolean;
  run(session: OpenSession): Promise<void>;
}

/** How one session went, for schedules, penalty boxes and a harness's timeline. */
export interface SessionOutcome {
  readonly why: SessionTrigger;
  /** Clock ms the session started and ended. */
  readonly started: number;
  readonly ended: number;
  readonly ok: boolean;
  /** The failure as the module reports it (`{sync-error}`, `{auth}` ...). */
  readonly error?: string;
  /** The link failed (no coverage, no answer) rather than the hub refusing. */
  readonly linkFailure?: boolean;
  /** The session could not connect: no network registration, or the hub did not answer. */
  readonly connectFailure?: ConnectFailure;
  readonly traffic: Traffic;
  /** The session stays open (continuous mode). */
  readonly held: boolean;
  /**
   * Its end was kept (`SyncEngine.onEnd` listeners heard it, in the turn that kept it): told to
   * outcome listeners, so that what `onEnd` did is not done again.
   */
  readonly kept?: boolean;
}
