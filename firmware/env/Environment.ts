import type { Notebox } from "../storage/Notebox.js";

/** One variable as a layer holds it: the name as it was given, its value, when it was set. */
export interface EnvEntry {
  readonly name: string;
  readonly text: string;
  /** Epoch seconds when set (0 when the module did not know the time). */
  readonly time: number;
}

/** Host defaults also remember whether the host asked for them to be shown on the hub. */
export interface EnvDefaultEntry extends EnvEntry {
  readonly sync?: boolean;
}

/** A layer as flash kept it before each variable had its own record: lower-cased name to entry. */
type LegacyLayer<E extends EnvEntry = EnvEntry> = Record<string, E>;

/**
 * Values the hub delivered, written by the sync engine into the `env.hub` configuration record.
 * Each scope maps variable names to values; the hub has already merged a device's fleets.
 * `time` is when the hub values last changed (epoch seconds).
 */
export interface HubEnvironment {
  readonly device?: Readonly<Record<string, string>>;
  readonly fleet?: Readonly<Record<string, string>>;
  readonly project?: Readonly<Record<string, string>>;
  readonly time?: number;
}

/**
 * Configuration record keys (Notebox config) of the environment. Host values are one record per
 * variable, `env.set/<name>` and `env.default/<name>` (the lower-cased name, control characters escaped), so a
 * change rewrites one small record however many variables there are. Flash written before that
 * holds each layer in one record under the bare key; it is still read, and split up at the
 * layer's next change.
 */
export const ENV_KEYS = {
  /** `env.set` values: EnvEntry per variable. */
  local: "env.set",
  /** `env.default` values: EnvDefaultEntry per variable. */
  defaults: "env.default",
  /** Hub values: `HubEnvironment`, written by the sync engine. */
  hub: "env.hub",
  /** Epoch seconds of the last change of any effective value made on the module. */
  modified: "env.modified",
} as const;

const HUB_SCOPES = ["device", "fleet", "project"] as const;

/**
 * The module's environment variables over its configuration records. Names are
 * case-insensitive. A name resolves to the first of: the host's `env.set` value, the hub's
 * device, fleet and project values, the host's `env.default` value.
 */
export class Environment {
  readonly #notebox: Notebox;

  constructor(notebox: Notebox) {
    this.#notebox = notebox;
  }

  /** The effective value of one variable. */
  get(name: string): EnvEntry | undefined {
    const key = name.toLowerCase();
    const local = this.#entry(ENV_KEYS.local, key);
    if (local) return local;
    const hub = this.#notebox.config<HubEnvironment>(ENV_KEYS.hub);
    if (hub) {
      for (const scope of HUB_SCOPES) {
        const values = hub[scope];
        if (!values) continue;
        for (const [hubName, text] of Object.entries(values)) {
          if (hubName.toLowerCase() === key) return { name: hubName, text, time: hub.time ?? 0 };
        }
      }
    }
    return this.#entry<EnvDefaultEntry>(ENV_KEYS.defaults, key);
  }

  /** Every variable with its effective value, keyed by lower-cased name. */
  all(): Map<string, EnvEntry> {
    const out = new Map<string, EnvEntry>();
    const add = (entry: EnvEntry) => {
      const key = entry.name.toLowerCase();
      if (!out.has(key)) out.set(key, entry);
    };
    for (const entry of this.#entries(ENV_KEYS.local)) add(entry);
    const hub = this.#notebox.config<HubEnvironment>(ENV_KEYS.hub);
    if (hub) {
      for (const scope of HUB_SCOPES) {
        for (const [name, text] of Object.entries(hub[scope] ?? {})) add({ name, text, time: hub.time ?? 0 });
      }
    }
    for (const entry of this.#entries<EnvDefaultEntry>(ENV_KEYS.defaults)) add(entry);
    return out;
  }

  /** The host defaults (for the sync engine: those with `sync` are shown on the hub). */
  defaults(): EnvDefaultEntry[] {
    return this.#entries<EnvDefaultEntry>(ENV_KEYS.defaults);
  }

  /** Epoch seconds of the last change of any effective value, hub deliveries included. */
  modified(): number {
    const local = this.#notebox.config<number>(ENV_KEYS.modified) ?? 0;
    const hub = this.#notebox.config<HubEnvironment>(ENV_KEYS.hub)?.time ?? 0;
    return Math.max(local, hub);
  }

  /** Sets (text) or deletes (undefined) the host's `env.set` value. Must run in a transaction. */
  setLocal(name: string, text: string | undefined, time: number): void {
    this.#change(ENV_KEYS.local, name, text === undefined ? undefined : { name, text, time }, time);
  }

  /** Sets (text) or deletes (undefined) the host's `env.default` value. Must run in a transaction. */
  setDefault(name: string, text: string | undefined, time: number, sync: boolean): void {
    const entry: EnvDefaultEntry | undefined =
      text === undefined ? undefined : sync ? { name, text, time, sync } : { name, text, time };
    this.#change(ENV_KEYS.defaults, name, entry, time);
  }

  #change(layer: string, name: string, entry: EnvEntry | undefined, time: number): void {
    // Only this name's effective value can change.
    const before = this.get(name)?.text;
    this.#splitLegacy(layer);
    this.#notebox.setConfig(recordKey(layer, name.toLowerCase()), entry);
    if (this.get(name)?.text === before) return;
    // Without a known time a change cannot be dated; the last known date is kept, never moved back.
    const previous = this.#notebox.config<number>(ENV_KEYS.modified) ?? 0;
    if (time > previous) this.#notebox.setConfig(ENV_KEYS.modified, time);
  }

  /** A layer's entry for a lower-cased name, from its own record or the legacy layer record. */
  #entry<E extends EnvEntry = EnvEntry>(layer: string, key: string): E | undefined {
    const own = this.#notebox.config<E>(recordKey(layer, key));
    if (own) return own;
    const legacy = this.#notebox.config<LegacyLayer<E>>(layer);
    return legacy && Object.hasOwn(legacy, key) ? legacy[key] : undefined;
  }

  /** Every entry of a layer. */
  #entries<E extends EnvEntry = EnvEntry>(layer: string): E[] {
    const out = new Map<string, E>();
    const legacy = this.#notebox.config<LegacyLayer<E>>(layer);
    if (legacy) for (const [key, entry] of Object.entries(legacy)) out.set(key, entry);
    for (const key of this.#notebox.configKeys(`${layer}/`)) {
      const entry = this.#notebox.config<E>(key);
      if (entry) out.set(entry.name.toLowerCase(), entry);
    }
    return [...out.values()];
  }

  /** Moves a layer kept in one record (older flash) to a record per variable. */
  #splitLegacy(layer: string): void {
    const legacy = this.#notebox.config<LegacyLayer>(layer);
    if (!legacy) return;
    for (const [key, entry] of Object.entries(legacy)) this.#notebox.setConfig(recordKey(layer, key), entry);
    this.#notebox.setConfig(layer, undefined);
  }
}

/**
 * The record of one variable of a layer. Names may hold any character, record keys no control
 * character (the flash store separates key parts with one): those and `%` are written `%XX`.
 */
function recordKey(layer: string, lowerCasedName: string): string {
  const escaped = lowerCasedName.replace(
    UNSAFE_IN_KEYS,
    (c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
  return `${layer}/${escaped}`;
}

// eslint-disable-next-line no-control-regex
const UNSAFE_IN_KEYS = /[\u0000-\u001f\u007f%]/g;
