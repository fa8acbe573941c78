import { randomBytes } from "node:crypto";
import pg from "pg";
import {
  MAX_CLUSTER_PAYLOAD,
  type ClusterChannel,
  type ClusterStore,
  type LimitState,
  type SessionRow,
} from "../ClusterStore.js";
import type { DeviceRecord } from "../records.js";
import type { PgConnection } from "./PgConnection.js";
import type { PgDeviceStore } from "./PgDeviceStore.js";

/** How often a process says it is alive, and how long after its last beat it counts as gone. */
export const BEAT_EVERY_MS = 3_000;
export const LIVE_WINDOW_MS = 12_000;
const CHANNELS: readonly ClusterChannel[] = ["cardsim_device", "cardsim_feed"];

/**
 * What the hub processes over one PostgreSQL database share (see ClusterStore): sessions and spent
 * challenges in tables, each process's beat in `hub_nodes`, and messages by LISTEN/NOTIFY on a
 * connection of its own (asked for again with backoff when it is lost; what was published while
 * it was away is not heard, and the waits it would have woken end at their time).
 */
export class PgClusterStore implements ClusterStore {
  readonly node = `node:${randomBytes(8).toString("hex")}`;
  readonly #listeners = new Map<ClusterChannel, Set<(payload: string) => void>>();
  #listener: pg.Client | undefined;
  #beat: NodeJS.Timeout | undefined;
  #closed = false;
  #listening = false;
  #othersListening = false;
  /** The wait before the listening connection is asked for again. */
  #delay = 100;

  constructor(
    private readonly sql: PgConnection,
    private readonly devices: PgDeviceStore,
    private readonly url: string,
    private readonly onRetry: ((message: string) => void) | undefined,
  ) {}

  /** Beats (now and every BEAT_EVERY_MS) and listens. */
  async start(): Promise<void> {
    await this.#beatOnce();
    this.#beat = setInterval(() => void this.#beatOnce().catch(() => undefined), BEAT_EVERY_MS);
    this.#beat.unref();
    await this.#listen();
  }

  async #beatOnce(): Promise<void> {
    const now = Date.now();
    await this.sql.run(
      `INSERT INTO hub_nodes (node, seen, listening) VALUES (?, ?, ?)
       ON CONFLICT (node) DO UPDATE SET seen = excluded.seen, listening = excluded.listening`,
      this.node,
      now,
      this.#listening ? 1 : 0,
    );
    const others = await this.sql.get<{ n: number }>(
      "SELECT count(*) AS n FROM hub_nodes WHERE listening = 1 AND node <> ? AND seen >= ?",
      this.node,
      now - LIVE_WINDOW_MS,
    );
    this.#othersListening = (others?.n ?? 0) > 0;
  }

  setListening(listening: boolean): void {
    this.#listening = listening;
    void this.#beatOnce().catch(() => undefined);
  }

  get othersListening(): boolean {
    return this.#othersListening;
  }

  /** Listens on a connection of its own; a lost one is replaced after a backoff (0.1 s doubling to 5 s). */
  async #listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on("notification", (message) => {
      const listeners = this.#listeners.get(message.channel as ClusterChannel);
      for (const listener of [...(listeners ?? [])]) {
        try {
          listener(message.payload ?? "");
        } catch {
          // A listener's fault is its own.
        }
      }
    });
    let lost = false;
    const again = (error: unknown) => {
      if (lost || this.#closed) return;
      lost = true;
      if (this.#listener === client) this.#listener = undefined;
      void client.end().catch(() => undefined);
      const delay = this.#delay;
      this.#delay = Math.min(delay * 2, 5000);
      this.onRetry?.(
        `hub store: lost the PostgreSQL connection that hears the other hub processes (${(error as Error).message}); trying again in ${delay} ms`,
      );
      setTimeout(() => void this.#listen(), delay).unref();
    };
    client.on("error", again);
    client.on("end", () => again(new Error("connection ended")));
    this.#listener = client;
    try {
      await client.connect();
      for (const channel of CHANNELS) await client.query(`LISTEN ${channel}`);
      this.#delay = 100;
    } catch (error) {
      again(error);
    }
  }

  async putSession(row: SessionRow): Promise<void> {
    await this.sql.run(
      `INSERT INTO sync_sessions (token, device_uid, last_seen, data) VALUES (?, ?, ?, ?)
       ON CONFLICT (token) DO UPDATE SET last_seen = excluded.last_seen, data = excluded.data`,
      row.token,
      row.deviceUid,
      row.lastSeen,
      row.data,
    );
  }

  async updateSession(row: SessionRow): Promise<void> {
    await this.sql.run(
      "UPDATE sync_sessions SET last_seen = ?, data = ? WHERE token = ?",
      row.lastSeen,
      row.data,
      row.token,
    );
  }

  async getSession(token: string): Promise<(SessionRow & { device: DeviceRecord | null }) | undefined> {
    // One statement for what every sync message first needs: its session (locked in a
    // transaction) and the session's device.
    const lock = this.sql.inTransaction ? " FOR UPDATE OF s" : "";
    const row = await this.sql.get<Row & { device_doc: string | null }>(
      `SELECT s.*, d.doc AS device_doc FROM sync_sessions s LEFT JOIN devices d ON d.uid = s.device_uid
        WHERE s.token = ?${lock}`,
      token,
    );
    if (!row) return undefined;
    return {
      ...sessionRow(row),
      device: row.device_doc === null ? null : (JSON.parse(row.device_doc) as DeviceRecord),
    };
  }

  async sessionsOfDevice(deviceUid: string): Promise<SessionRow[]> {
    return (await this.sql.all<Row>("SELECT * FROM sync_sessions WHERE device_uid = ?", deviceUid)).map(
      sessionRow,
    );
  }

  async deleteSession(token: string): Promise<void> {
    await this.sql.run("DELETE FROM sync_sessions WHERE token = ?", token);
  }

  async takeIdleSessions(before: number): Promise<SessionRow[]> {
    return (
      await this.sql.all<Row>(
        `DELETE FROM sync_sessions WHERE token IN (
           SELECT token FROM sync_sessions WHERE last_seen < ? FOR UPDATE SKIP LOCKED)
         RETURNING *`,
        before,
      )
    ).map(sessionRow);
  }

  async countSessions(): Promise<number> {
    return (await this.sql.get<{ n: number }>("SELECT count(*) AS n FROM sync_sessions"))?.n ?? 0;
  }

  async disconnectUnheld(): Promise<number> {
    return this.sql.atomic(async () => {
      const rows = await this.sql.all<{ uid: string }>(
        `UPDATE devices SET connected = 0 WHERE connected = 1
           AND NOT EXISTS (SELECT 1 FROM sync_sessions s WHERE s.device_uid = devices.uid)
         RETURNING uid`,
      );
      await this.devices.refreshDevices(rows.map((r) => r.uid));
      return rows.length;
    });
  }

  async sharedSecret(name: string, make: () => Uint8Array): Promise<Uint8Array> {
    const key = `secret:${name}`;
    await this.sql.run(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
      key,
      Buffer.from(make()).toString("base64"),
    );
    const row = await this.sql.get<{ value: string }>("SELECT value FROM meta WHERE key = ?", key);
    return new Uint8Array(Buffer.from(row!.value, "base64"));
  }

  async spendChallenge(challenge: string, expires: number): Promise<boolean> {
    const n = await this.sql.run(
      "INSERT INTO spent_challenges (challenge, expires) VALUES (?, ?) ON CONFLICT (challenge) DO NOTHING",
      challenge,
      expires,
    );
    return n > 0;
  }

  async challengeSpent(challenge: string): Promise<boolean> {
    return (
      (await this.sql.get("SELECT 1 FROM spent_challenges WHERE challenge = ?", challenge)) !== undefined
    );
  }

  async pruneChallenges(now: number): Promise<void> {
    await this.sql.run("DELETE FROM spent_challenges WHERE expires < ?", now);
  }

  async updateLimits<T>(
    keys: readonly string[],
    decide: (states: (string | undefined)[]) => { states?: readonly (LimitState | undefined)[]; result: T },
  ): Promise<T> {
    return this.sql.atomic(async () => {
      // Made if missing (empty: none yet), then locked, in the order of the keys' text (no two
      // takers deadlock, and two that both found none still take in turn).
      const sorted = [...new Set(keys)].sort();
      await this.sql.run(
        "INSERT INTO limit_states (key, data, expires) SELECT k, '', 0 FROM unnest(?::text[]) AS k ON CONFLICT (key) DO NOTHING",
        sorted,
      );
      const rows = await this.sql.all<{ key: string; data: string }>(
        "SELECT key, data FROM limit_states WHERE key = ANY (?::text[]) ORDER BY key FOR UPDATE",
        sorted,
      );
      const decided = decide(statesOf(keys, rows));
      const changed = (decided.states ?? []).flatMap((state, i) =>
        state ? [{ ...state, key: keys[i]! }] : [],
      );
      if (changed.length > 0)
        await this.sql.run(
          `UPDATE limit_states SET data = c.data, expires = c.expires
             FROM unnest(?::text[], ?::text[], ?::bigint[]) AS c(key, data, expires)
            WHERE limit_states.key = c.key`,
          changed.map((c) => c.key),
          changed.map((c) => c.data),
          changed.map((c) => c.expires),
        );
      return decided.result;
    });
  }

  async readLimits(keys: readonly string[]): Promise<(string | undefined)[]> {
    const rows = await this.sql.all<{ key: string; data: string }>(
      "SELECT key, data FROM limit_states WHERE key = ANY (?::text[])",
      [...new Set(keys)],
    );
    return statesOf(keys, rows);
  }

  async pruneLimits(now: number): Promise<void> {
    await this.sql.run("DELETE FROM limit_states WHERE expires < ?", now);
  }

  async liveNodes(): Promise<string[]> {
    const since = Date.now() - LIVE_WINDOW_MS;
    const rows = await this.sql.all<{ node: string }>("SELECT node FROM hub_nodes WHERE seen >= ?", since);
    return [...new Set([this.node, ...rows.map((r) => r.node)])];
  }

  publish(channel: ClusterChannel, payload: string): void {
    if (Buffer.byteLength(payload) > MAX_CLUSTER_PAYLOAD) throw new Error(`${channel} payload too long`);
    this.sql.afterCommit(() => {
      if (this.#closed) return;
      void this.sql.run("SELECT pg_notify(?, ?)", channel, payload).catch(() => undefined);
    });
  }

  subscribe(channel: ClusterChannel, listener: (payload: string) => void): () => void {
    let set = this.#listeners.get(channel);
    if (!set) this.#listeners.set(channel, (set = new Set()));
    set.add(listener);
    return () => void set.delete(listener);
  }

  /** Stops beating and listening, and says this process is gone (its deliveries free at once). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#beat);
    const listener = this.#listener;
    this.#listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.sql.run("DELETE FROM hub_nodes WHERE node = ?", this.node).catch(() => undefined);
  }
}

interface Row {
  token: string;
  device_uid: string;
  last_seen: number;
  data: string;
}

const sessionRow = (r: Row): SessionRow => ({
  token: r.token,
  deviceUid: r.device_uid,
  lastSeen: r.last_seen,
  data: r.data,
});

/** The states of `keys` in their order from the rows found (an empty text: none yet). */
function statesOf(
  keys: readonly string[],
  rows: readonly { key: string; data: string }[],
): (string | undefined)[] {
  const byKey = new Map(rows.filter((r) => r.data !== "").map((r) => [r.key, r.data]));
  return keys.map((key) => byKey.get(key));
}
