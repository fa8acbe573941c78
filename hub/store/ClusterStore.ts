import type { DeviceRecord } from "./records.js";

/**
 * What several hub processes over one database share besides the records (docs/hub.md, "Several
 * hub processes"): the open sync sessions, the key of the `hello` challenges and the challenges
 * spent, which processes are alive, and messages between the processes. A store that several
 * processes can open (PostgreSQL) has one (`HubStore.cluster`); on SQLite, one process, the hub
 * keeps all of it in memory.
 */
export interface ClusterStore {
  /** This process among the hub processes over the store (its deliveries are claimed by it). */
  readonly node: string;

  /** A sync session opened: its token, device, last message (hub time) and document. */
  putSession(row: SessionRow): Promise<void>;
  /** A session's row rewritten (its last message, its counts); nothing if it has ended meanwhile. */
  updateSession(row: SessionRow): Promise<void>;
  /**
   * The session of a token, and its device as it is now (null: none), read together; in a
   * transaction the session is locked until it ends (its messages one at a time).
   */
  getSession(token: string): Promise<(SessionRow & { readonly device: DeviceRecord | null }) | undefined>;
  sessionsOfDevice(deviceUid: string): Promise<SessionRow[]>;
  deleteSession(token: string): Promise<void>;
  /** Takes out (and returns) the sessions last seen before `before`: each is taken by one process. */
  takeIdleSessions(before: number): Promise<SessionRow[]>;
  countSessions(): Promise<number>;
  /** Marks not connected the devices no open session holds (a process starting). */
  disconnectUnheld(): Promise<number>;

  /** The secret `name` shared by every process over the store: made by the first that asks. */
  sharedSecret(name: string, make: () => Uint8Array): Promise<Uint8Array>;
  /** Spends a challenge until `expires`: false when it was spent already (by any process). */
  spendChallenge(challenge: string, expires: number): Promise<boolean>;
  challengeSpent(challenge: string): Promise<boolean>;
  pruneChallenges(now: number): Promise<void>;

  /**
   * The limiters' states the processes share (hello buckets, API rate windows, sign-in and PIN
   * throttles), each a short text under a key: `decide` is given the states of `keys` (locked
   * until it has decided, so that processes taking from one state take in turn) and answers their
   * new states (in the order of `keys`; undefined leaves one as it was), or none to change nothing.
   */
  updateLimits<T>(
    keys: readonly string[],
    decide: (states: (string | undefined)[]) => { states?: readonly (LimitState | undefined)[]; result: T },
  ): Promise<T>;
  /** The states of `keys` as they are now, unlocked (a check that changes nothing). */
  readLimits(keys: readonly string[]): Promise<(string | undefined)[]>;
  /** Forgets the states that expired before `now` (each is as good as none by then). */
  pruneLimits(now: number): Promise<void>;

  /** The processes seen alive (their last beat within the store's liveness window), this one included. */
  liveNodes(): Promise<string[]>;
  /** Says (at every beat) whether this process has listeners of the live feed. */
  setListening(listening: boolean): void;
  /** Another live process had listeners of the live feed at its last beat. */
  readonly othersListening: boolean;

  /**
   * Tells every process over the store (this one too) `payload` on `channel`: after the caller's
   * transaction commits, at once outside one. Payloads are short texts (under 7,000 bytes).
   */
  publish(channel: ClusterChannel, payload: string): void;
  /** Hears what any process publishes on `channel`; the function returned stops. */
  subscribe(channel: ClusterChannel, listener: (payload: string) => void): () => void;
}

/** The channels between hub processes: device changes (signal waits) and the live feed. */
export type ClusterChannel = "cardsim_device" | "cardsim_feed";

/** A limiter's state as kept: its text, and the hub time after which it is as good as none. */
export interface LimitState {
  readonly data: string;
  readonly expires: number;
}

export interface SessionRow {
  readonly token: string;
  readonly deviceUid: string;
  /** The session's last message, hub time (ms). */
  readonly lastSeen: number;
  /** The session's state as JSON text (hub/sync/SharedSyncSessions.ts). */
  readonly data: string;
}

/** The longest a cluster payload may be (PostgreSQL's NOTIFY takes up to 8,000 bytes). */
export const MAX_CLUSTER_PAYLOAD = 7000;

/**
 * A sweep of the expired limiter states at most once a minute of hub time (each process sweeps;
 * what one misses the next does), for the limiters to call as they are used.
 */
export function limitSweeper(cluster: ClusterStore): (now: number) => void {
  let swept = Number.NEGATIVE_INFINITY;
  return (now) => {
    if (now - swept < 60_000) return;
    swept = now;
    void cluster.pruneLimits(now).catch(() => undefined);
  };
}
