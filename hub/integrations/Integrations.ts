import jsonata from "jsonata";
import type { Clock } from "../../core/Clock.js";
import { isJsonObject, type JsonObject } from "../../core/json.js";
import type { NewEvent } from "../events/EventService.js";
import { JsonataCache, JsonataError } from "../events/JsonataCache.js";
import type { HubStore } from "../store/HubStore.js";
import { SecretBox } from "./SecretBox.js";

/** Members of an event the global transformation may not change: who and what it is. */
const KEPT = ["device", "file", "app", "product", "req", "session"];

/** How long a project's global transformation setting, once read, is used without reading it again. */
const SETTING_TTL_MS = 1000;

/** A setting read at `read` is used at `now` (within its time to live, and not from the future). */
const fresh = (read: number, now: number): boolean => now - read < SETTING_TTL_MS && now >= read;

/** A secret's name: letters, digits and underscores (the definition's rule). */
export const SECRET_NAME = /^[A-Za-z0-9_]{1,128}$/;

/** A reference to a project secret in a route's URL or header values: `{{secret.NAME}}`. */
const SECRET_REFERENCE = /\{\{\s*secret\.([A-Za-z0-9_]{1,128})\s*\}\}/g;

/** Why an expression does not parse, or undefined when it does (nothing is evaluated). */
export function jsonataSyntaxFault(source: string): string | undefined {
  try {
    jsonata(source);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * What webhooks, project secrets and global event transformations need beyond their records:
 * the JSONata evaluator their expressions run in (one worker process, started when first
 * needed) and the box secrets are sealed in.
 */
export class Integrations {
  readonly box: SecretBox;
  #jsonata: JsonataCache | undefined;
  readonly #settings = new Map<string, { read: number; transform: string | undefined }>();

  constructor(
    private readonly store: HubStore,
    private readonly clock: Clock,
    secretKey: Uint8Array,
    private readonly onTransformError: (error: unknown, event: NewEvent) => void = () => undefined,
  ) {
    this.box = new SecretBox(secretKey);
  }

  /** Evaluates `source` over `input` in the evaluator's worker. */
  evaluate(source: string, input: unknown): Promise<{ value: unknown; doNotRoute: boolean }> {
    this.#jsonata ??= new JsonataCache(() => this.clock.now(), { workers: 1 });
    return this.#jsonata.evaluate(source, input);
  }

  /**
   * The event as the project's global transformation makes it, when one is set and enabled: the
   * expression gets the event document (`device`, `file`, `when`, the body and the rest) and
   * what it gives (an object) becomes the event's members, all but those that say whose event it
   * is and where it came from (`device`, `file`, `app`, `product`, `req`, `session`), which stay
   * the hub's. An expression that fails or gives no object leaves the event as it came, and the
   * failure is reported (the hub's log); `$doNotRoute()` is ignored here (routes have their own).
   */
  async transformEvent(event: NewEvent): Promise<NewEvent> {
    const setting = await this.#setting(event.projectUid);
    return setting ? await this.#transform(setting, event) : event;
  }

  /**
   * `transformEvent` of each event of a batch, in order: the setting is looked up once per
   * project, and a batch no transformation applies to is given back as it came. Given back at
   * once (no promise) when the settings read within the last second say none applies: what most
   * of a hub's events meet, at every event a session stores.
   */
  transformEvents(events: readonly NewEvent[]): readonly NewEvent[] | Promise<readonly NewEvent[]> {
    const now = this.clock.now();
    for (const { projectUid } of events) {
      const cached = this.#settings.get(projectUid);
      if (!cached || !fresh(cached.read, now) || cached.transform !== undefined)
        return this.#transformEvents(events);
    }
    return events;
  }

  async #transformEvents(events: readonly NewEvent[]): Promise<readonly NewEvent[]> {
    const settings = new Map<string, string | undefined>();
    for (const { projectUid } of events)
      if (!settings.has(projectUid)) settings.set(projectUid, await this.#setting(projectUid));
    if ([...settings.values()].every((setting) => setting === undefined)) return events;
    return Promise.all(
      events.map((event) => {
        const setting = settings.get(event.projectUid);
        return setting ? this.#transform(setting, event) : event;
      }),
    );
  }

  async #transform(setting: string, event: NewEvent): Promise<NewEvent> {
    const input: JsonObject = { device: event.deviceUid, file: event.file, ...event.data };
    if (event.whenSec !== undefined && input["when"] === undefined) input["when"] = event.whenSec;
    try {
      const { value } = await this.evaluate(setting, input);
      if (!isJsonObject(value))
        throw new JsonataError("the global transformation gave no JSON object", false);
      const data: JsonObject = { ...value };
      for (const name of [...KEPT, "when"]) {
        if (event.data[name] !== undefined) data[name] = event.data[name];
        else delete data[name];
      }
      const { dataText: _written, ...rest } = event;
      const when = value["when"];
      return { ...rest, data, ...(typeof when === "number" ? { whenSec: Math.floor(when) } : {}) };
    } catch (error) {
      this.onTransformError(error, event);
      return event;
    }
  }

  /**
   * The project's enabled global transformation, or undefined: read from the store at most once
   * a second of the hub clock per project (another hub process's change is seen within that),
   * and at once after this process changed it.
   */
  async #setting(projectUid: string): Promise<string | undefined> {
    const now = this.clock.now();
    const cached = this.#settings.get(projectUid);
    if (cached && fresh(cached.read, now)) return cached.transform;
    const record = await this.store.integrations.getGlobalTransform(projectUid);
    const transform = record?.enabled && record.transform.trim() !== "" ? record.transform : undefined;
    if (this.#settings.size > 10_000) this.#settings.clear();
    this.#settings.set(projectUid, { read: now, transform });
    return transform;
  }

  /** Forgets what was read of the project's global transformation (this process changed it). */
  globalTransformChanged(projectUid: string): void {
    this.#settings.delete(projectUid);
  }

  /**
   * `text` with each `{{secret.NAME}}` replaced by the value of the project's secret NAME (an
   * unknown name, or one that does not open under this hub's key, is left as written).
   */
  async resolveSecrets(projectUid: string, text: string): Promise<string> {
    const names = new Set([...text.matchAll(SECRET_REFERENCE)].map((m) => m[1]!));
    if (names.size === 0) return text;
    const values = new Map<string, string>();
    for (const name of names) {
      const sealed = await this.store.integrations.getSecretCiphertext(projectUid, name);
      const value = sealed === undefined ? undefined : this.box.open(projectUid, name, sealed);
      if (value !== undefined) values.set(name, value);
    }
    return text.replace(SECRET_REFERENCE, (whole, name: string) => values.get(name) ?? whole);
  }

  async stop(): Promise<void> {
    await this.#jsonata?.close();
  }
}
