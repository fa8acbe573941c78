import type {
  AccessTokenRecord,
  DescriptionRecord,
  DeviceFilter,
  DeviceInput,
  DeviceRecord,
  EnvScope,
  EnvVarRecord,
  EventCursorPage,
  EventCursorQuery,
  EventFilter,
  EventOrder,
  EventRecord,
  EventUsageRow,
  FleetRecord,
  HealthLogRecord,
  HealthUsageRow,
  NoteRecord,
  NotefileRecord,
  OAuthClientRecord,
  OrganizationRecord,
  OrgRole,
  Page,
  PageResult,
  ProductRecord,
  ProjectRecord,
  ProjectRole,
  SessionRecord,
  SessionUsageRow,
  SignalRecord,
  TokenKind,
  UsageQuery,
  UserRecord,
} from "./records.js";
import type { JsonObject } from "../../core/json.js";
import type { RouteStore } from "./RouteStore.js";
import type { FirmwareStore } from "./FirmwareStore.js";
import type { JobStore, MonitorStore } from "./AutomationStore.js";
import type { ClusterStore } from "./ClusterStore.js";
import type { IntegrationStore } from "./IntegrationStore.js";

export interface TransactionOptions {
  /**
   * The commit is on disk when it returns, not only safe from a crash of the process (for what a
   * client is told is stored, such as an uploaded image). Only an outermost transaction can be:
   * a unit nested in another commits with it.
   */
  readonly durable?: boolean;
}

/**
 * The hub's persistence port. SQLite (`SqliteHubStore`) is the embedded default; every method is
 * asynchronous and atomic on its own so that a PostgreSQL backend can implement the same
 * interface, and `transaction` makes several calls one unit. Refusals the API reports (a
 * duplicate note, a missing notefile) are thrown as `StoreError` with a code; anything else
 * thrown is a fault.
 */
export interface HubStore {
  readonly accounts: AccountStore;
  readonly projects: ProjectStore;
  readonly devices: DeviceStore;
  readonly env: EnvStore;
  readonly notefiles: NotefileStore;
  readonly telemetry: TelemetryStore;
  readonly descriptions: DescriptionStore;
  readonly credentials: CredentialStore;
  /** Routes, their delivery queue and their logs. */
  readonly routes: RouteStore;
  /** Firmware images and DFU requests (hub/dfu). */
  readonly firmware: FirmwareStore;
  /** Monitors and their alerts (hub/monitors). */
  readonly monitors: MonitorStore;
  /** Batch jobs and their runs (hub/jobs). */
  readonly jobs: JobStore;
  /**
   * What several hub processes over the store share (sessions, challenges, messages between them):
   * only a store that several processes can open has it; without it the hub keeps all that in memory.
   */
  readonly cluster?: ClusterStore;
  /** Webhooks, project secrets and global event transformations. */
  readonly integrations: IntegrationStore;
  /**
   * Runs `work` as one transaction: every store call it makes while it runs (awaited, directly or
   * through services) commits together when it resolves, or not at all when it throws (the error
   * is passed on). Calls from outside never see its changes before the commit: SQLite makes them
   * wait until it has ended; a server database would give them their own snapshot. Called
   * inside a transaction, it joins it as a nested unit (a savepoint): a throw undoes only that
   * unit's changes, and nothing is committed before the outermost transaction is.
   */
  transaction<T>(work: () => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * Runs `action` once the transaction the caller is in has committed (never when it, or the
   * nested unit the caller is in, rolls back); outside a transaction, at once. For telling others
   * about changes (event subscribers) only when they are real.
   */
  afterCommit(action: () => void): void;
  /**
   * Deletes the project and everything of it (members, products, fleets, devices with their
   * notefiles and events, routes, firmware, variables, tokens, webhooks, secrets) in one
   * transaction; false when there was no such project.
   */
  deleteProject(uid: string): Promise<boolean>;
  /** Small key/value settings of the hub itself (bootstrap state). */
  getMeta(key: string): Promise<string | undefined>;
  setMeta(key: string, value: string): Promise<void>;
  close(): Promise<void>;
}

export interface AccountStore {
  createUser(user: UserRecord): Promise<void>;
  getUser(uid: string): Promise<UserRecord | undefined>;
  getUserByUsername(username: string): Promise<UserRecord | undefined>;
  listUsers(): Promise<UserRecord[]>;
  setPasswordHash(uid: string, passwordHash: string): Promise<void>;
  createOrganization(org: OrganizationRecord): Promise<void>;
  getOrganization(uid: string): Promise<OrganizationRecord | undefined>;
  setOrgMember(orgUid: string, userUid: string, role: OrgRole): Promise<void>;
  getOrgRole(orgUid: string, userUid: string): Promise<OrgRole | undefined>;
  /** Organizations the user belongs to, oldest first. */
  listOrganizationsOf(userUid: string): Promise<{ org: OrganizationRecord; role: OrgRole }[]>;
}

export interface ProjectStore {
  createProject(project: ProjectRecord): Promise<void>;
  getProject(uid: string): Promise<ProjectRecord | undefined>;
  listProjects(): Promise<ProjectRecord[]>;
  setMember(projectUid: string, userUid: string, role: ProjectRole): Promise<void>;
  removeMember(projectUid: string, userUid: string): Promise<void>;
  getRole(projectUid: string, userUid: string): Promise<ProjectRole | undefined>;
  /** Projects the user is a member of, oldest first. */
  listProjectsOf(userUid: string): Promise<{ project: ProjectRecord; role: ProjectRole }[]>;
  listMembers(projectUid: string): Promise<{ user: UserRecord; role: ProjectRole }[]>;

  /** Throws `conflict` when the product UID is taken. */
  createProduct(product: ProductRecord): Promise<void>;
  getProduct(uid: string): Promise<ProductRecord | undefined>;
  listProducts(projectUid: string): Promise<ProductRecord[]>;
  /** Throws `conflict` while devices still use the product. */
  deleteProduct(uid: string): Promise<void>;

  createFleet(fleet: FleetRecord): Promise<void>;
  getFleet(uid: string): Promise<FleetRecord | undefined>;
  listFleets(projectUid: string): Promise<FleetRecord[]>;
  /** Updates the given fields and membership in one transaction; returns the new record. */
  updateFleet(
    uid: string,
    changes: Partial<Omit<FleetRecord, "uid" | "projectUid" | "created">>,
    membership?: { add: string[]; remove: string[] },
  ): Promise<FleetRecord>;
  /** Removes the fleet, its memberships and its environment variables. */
  deleteFleet(uid: string): Promise<void>;
}

export interface DeviceStore {
  /**
   * Creates the device or updates the given fields of an existing one. `read`: the record as the
   * caller read it from this store (`getDevice`, `putDevice`), which the store may take as the
   * device's current record instead of reading it again, but only when it can tell the stored
   * record has not changed since: the result is the same with or without it.
   */
  putDevice(device: DeviceInput, read?: DeviceRecord): Promise<DeviceRecord>;
  getDevice(uid: string): Promise<DeviceRecord | undefined>;
  /** Devices of a project with this serial number. */
  findBySerial(projectUid: string, serialNumber: string): Promise<DeviceRecord[]>;
  listDevices(projectUid: string, filter: DeviceFilter, page: Page): Promise<PageResult<DeviceRecord>>;
  countDevices(projectUid: string): Promise<number>;
  /**
   * Removes the device with its memberships, variables, notefiles and pending signals; with
   * `purge` also its events, sessions and health log in its project (never another project's,
   * should the UID have been there before).
   */
  deleteDevice(uid: string, purge: boolean): Promise<void>;
  setDisabled(uid: string, disabled: boolean): Promise<void>;
  setConnectivityAssurance(uid: string, enabled: boolean): Promise<void>;
  /** Adds (or removes) the device to (from) fleets; returns its fleet UIDs afterwards. */
  addToFleets(uid: string, fleetUids: string[]): Promise<string[]>;
  removeFromFleets(uid: string, fleetUids: string[]): Promise<string[]>;
  listPublicKeys(projectUid: string, page: Page): Promise<PageResult<{ uid: string; key: string }>>;
  queueSignal(deviceUid: string, body: JsonObject, now: number): Promise<SignalRecord>;
  /** Pending signals, oldest first (the device sync takes and acknowledges them). */
  pendingSignals(deviceUid: string): Promise<SignalRecord[]>;
  acknowledgeSignals(deviceUid: string, throughSeq: number): Promise<void>;
  /** Marks every device not connected (a starting hub holds no sessions); returns how many were. */
  disconnectAll(): Promise<number>;
  /** The tracker session the hub holds for the device (undefined before its first sync session). */
  trackerSession(deviceUid: string): Promise<string | undefined>;
  setTrackerSession(deviceUid: string, session: string): Promise<void>;
}

export interface EnvStore {
  get(scope: EnvScope): Promise<EnvVarRecord[]>;
  /** Adds or replaces the given variables, keeping the others; returns the whole set. */
  set(scope: EnvScope, vars: Record<string, string>, now: number): Promise<EnvVarRecord[]>;
  /** Removes one variable; false when it did not exist. */
  delete(scope: EnvScope, key: string): Promise<boolean>;
  /** Every variable of a project at every level, for hierarchy views. */
  forProject(projectUid: string): Promise<{
    project: EnvVarRecord[];
    fleets: Map<string, EnvVarRecord[]>;
    devices: Map<string, EnvVarRecord[]>;
    defaults: Map<string, EnvVarRecord[]>;
  }>;
}

/** How a changes query reads a notefile (the module's note.changes arguments). */
export interface ChangesOptions {
  tracker: string | null;
  max: number;
  start: boolean;
  stop: boolean;
  includeDeleted: boolean;
  deleteReturned: boolean;
  tombstoneOnDelete: boolean;
  /** Answer as the query would, but change nothing: no tracker moved or deleted, no note taken (HEAD). */
  peek?: boolean;
}

/** What a changes query returns (the module's note.changes semantics on the hub replica). */
export interface ChangesResult {
  /** Changes still pending for the tracker after this batch (only when a tracker was given). */
  changes: number | undefined;
  total: number;
  notes: NoteRecord[];
}

/** NotefileStore.syncOutlook's answer. */
export interface SyncOutlook {
  deleted: string[];
  changed: string[];
  signals: number;
}

export interface NotefileStore {
  /** Live notefiles of a device with their note totals, by name. */
  listNotefiles(deviceUid: string): Promise<NotefileRecord[]>;
  getNotefile(deviceUid: string, fileId: string): Promise<NotefileRecord | undefined>;
  /** Throws `notefile-exists`. */
  createNotefile(deviceUid: string, fileId: string, now: number): Promise<void>;
  /**
   * Adds a note, creating the notefile if needed. A null `noteId` (queues) gets `1:<change>`.
   * Throws `note-exists` when a live note has that ID; a tombstone is replaced.
   */
  addNote(
    deviceUid: string,
    fileId: string,
    note: { noteId: string | null; body: JsonObject | null; payload: string | null },
    now: number,
  ): Promise<NoteRecord>;
  /**
   * Replaces a note's body and payload. A missing (or deleted) note is created when `create`,
   * else `note-noexist` is thrown.
   */
  updateNote(
    deviceUid: string,
    fileId: string,
    noteId: string,
    content: { body: JsonObject | null; payload: string | null },
    now: number,
    create: boolean,
  ): Promise<NoteRecord>;
  /** `tombstone`: leave a deleted marker (databases); else remove (queues). Throws `note-noexist`. */
  deleteNote(
    deviceUid: string,
    fileId: string,
    noteId: string,
    now: number,
    tombstone: boolean,
  ): Promise<void>;
  /** The note, tombstones included. */
  getNote(deviceUid: string, fileId: string, noteId: string): Promise<NoteRecord | undefined>;
  /** Notes in change order; tombstones only when asked. */
  listNotes(deviceUid: string, fileId: string, options: { includeDeleted: boolean }): Promise<NoteRecord[]>;
  /**
   * Incremental read with a tracker: `start` resets it, the batch is the `max` lowest-change
   * notes at or above it, the tracker then moves past them; `stop` deletes it afterwards;
   * `deleteReturned` deletes the returned notes. Without a tracker every note is returned.
   * Throws `notefile-noexist`.
   */
  changes(deviceUid: string, fileId: string, options: ChangesOptions, now: number): Promise<ChangesResult>;
  /**
   * Per live notefile: its live notes (`total`), the tracker's position (`position`: the change
   * it has seen up to, 0 when the tracker is absent or null) and the notes changed after it,
   * tombstones included. For the device's tracker (`SYNC_TRACKER`) a note that came from the
   * device unchanged is not counted: the device has it.
   */
  summaries(
    deviceUid: string,
    tracker: string | null,
  ): Promise<{ fileId: string; total: number; position: number; changes: number }[]>;
  /** Removes notefiles and their notes; throws `notefile-noexist` (and removes nothing) if one is missing. */
  deleteNotefiles(deviceUid: string, fileIds: string[], now: number): Promise<void>;
  /** Notefiles deleted through the API that the device has not yet confirmed deleting, by name. */
  deletedNotefiles(deviceUid: string): Promise<string[]>;
  /** The device deleted these: their tombstones go (a notefile created again since stays). */
  forgetDeletedNotefiles(deviceUid: string, fileIds: readonly string[]): Promise<void>;

  // --- the device sync (hub/sync) ---

  /**
   * What an opening sync session tells the device, in one read: the notefiles deleted on the hub
   * (as `deletedNotefiles`), the live notefiles with changes for the device's tracker (as
   * `summaries(deviceUid, SYNC_TRACKER)` with `changes > 0`), both by name, and how many signals
   * are pending (as `devices.pendingSignals`).
   */
  syncOutlook(deviceUid: string): Promise<SyncOutlook>;

  /**
   * Stores a version of a note as it is (merged from the device by the sync), with the notefile's
   * next change number, creating the notefile if needed. `arrived`: the version is the device's,
   * unchanged (it is then never sent back to the device).
   */
  putVersion(
    deviceUid: string,
    fileId: string,
    version: Omit<NoteRecord, "change">,
    now: number,
  ): Promise<NoteRecord>;
  /**
   * The changes for a tracker after `after` (change numbers), lowest first, at most `max`,
   * tombstones included; notes that came from the device unchanged are passed over for the
   * device's tracker. `through` is the change the batch covers up to (the notefile's last change
   * when nothing is left after it); `more` says changes are left after `through`.
   */
  changesAfter(
    deviceUid: string,
    fileId: string,
    tracker: string,
    after: number,
    max: number,
  ): Promise<{ notes: NoteRecord[]; through: number; more: boolean }>;
  /** Where a tracker stands in a notefile (the change it has seen up to; 0 when absent). */
  trackerPosition(deviceUid: string, fileId: string, tracker: string): Promise<number>;
  setTrackerPosition(deviceUid: string, fileId: string, tracker: string, position: number): Promise<void>;
  /** Forgets a tracker in every notefile of the device (it starts again from 0). */
  clearTracker(deviceUid: string, tracker: string): Promise<void>;
  /** Removes a queue's notes changed up to `through` (delivered); returns how many. */
  removeDelivered(deviceUid: string, fileId: string, through: number): Promise<number>;
  /**
   * Removes the tombstones every tracker of the notefile has passed; the device's tracker counts
   * as at 0 while it has none. Returns how many.
   */
  purgeTombstones(deviceUid: string, fileId: string): Promise<number>;
}

export interface TelemetryStore {
  /**
   * Stores events, all or none; one whose UID is stored already is left as it was (the device
   * sync derives UIDs from content, so a note uploaded twice is one event). For each event, true
   * when it was stored now.
   */
  addEvents(events: readonly EventRecord[]): Promise<boolean[]>;
  /** `addEvents` of one event. */
  addEvent(event: EventRecord): Promise<boolean>;
  /** An event of this project. */
  getEvent(projectUid: string, uid: string): Promise<EventRecord | undefined>;
  /** A page of the project's events that pass the filter, in the order asked for. */
  listEvents(
    projectUid: string,
    filter: EventFilter,
    order: EventOrder,
    page: Page,
  ): Promise<PageResult<EventRecord>>;
  /**
   * A page of the project's events that pass the filter in the order the hub stored them (events
   * stored meanwhile come after every earlier one), starting with the cursor event.
   */
  eventsFromCursor(
    projectUid: string,
    filter: EventFilter,
    query: EventCursorQuery,
  ): Promise<EventCursorPage>;
  /** The project's events counted per key, period, device and notefile. */
  eventUsage(projectUid: string, query: UsageQuery): Promise<EventUsageRow[]>;
  /** The project's sessions counted per key, period, device, transport and SIM. */
  sessionUsage(projectUid: string, query: UsageQuery): Promise<SessionUsageRow[]>;
  /** Boots and firmware updates in the project's health log, per key, period and device. */
  healthUsage(projectUid: string, query: UsageQuery): Promise<HealthUsageRow[]>;
  /** The newest event of each notefile of the device in this project, newest first. */
  latestEvents(projectUid: string, deviceUid: string): Promise<EventRecord[]>;
  /** Billable events of the organization's projects per UTC day in [from, to). */
  billableEventsByDay(orgUid: string, fromMs: number, toMs: number): Promise<Map<number, number>>;
  addSession(session: SessionRecord): Promise<void>;
  /** Sessions of a device in this project, newest first. */
  listSessions(
    projectUid: string,
    deviceUid: string,
    filter: { startSec?: number; endSec?: number; firstSyncOnly: boolean },
    page: Page,
  ): Promise<PageResult<SessionRecord>>;
  addHealthLog(entry: HealthLogRecord): Promise<void>;
  /** Health log entries of a device in this project, newest first. */
  listHealthLog(
    projectUid: string,
    deviceUid: string,
    filter: { startSec?: number; endSec?: number; types?: string[] },
  ): Promise<HealthLogRecord[]>;
}

export interface DescriptionStore {
  put(record: DescriptionRecord, content: Uint8Array): Promise<DescriptionRecord>;
  get(name: string): Promise<{ record: DescriptionRecord; content: Uint8Array } | undefined>;
  list(): Promise<DescriptionRecord[]>;
  /** False when there was none. */
  delete(name: string): Promise<boolean>;
}

export interface CredentialStore {
  createToken(token: AccessTokenRecord): Promise<void>;
  findTokenByHash(hash: string): Promise<AccessTokenRecord | undefined>;
  getToken(uid: string): Promise<AccessTokenRecord | undefined>;
  listTokens(kind: TokenKind): Promise<AccessTokenRecord[]>;
  setTokenSuspended(uid: string, suspended: boolean): Promise<boolean>;
  deleteToken(uid: string): Promise<boolean>;
  touchToken(uid: string, now: number): Promise<void>;
  /** Drops expired tokens (kept tidy on start and from time to time). */
  purgeExpiredTokens(now: number): Promise<number>;
  createOAuthClient(client: OAuthClientRecord): Promise<void>;
  getOAuthClient(clientId: string): Promise<OAuthClientRecord | undefined>;
  listOAuthClients(): Promise<OAuthClientRecord[]>;
}
