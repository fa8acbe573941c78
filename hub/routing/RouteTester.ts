import type { Clock } from "../../core/Clock.js";
import type { JsonObject } from "../../core/json.js";
import type { HubIds } from "../HubIds.js";
import type { HubStore } from "../store/HubStore.js";
import type { EventRecord } from "../store/records.js";
import type { RouteLogRecord } from "../store/RouteStore.js";
import type { AttemptSender } from "./AttemptSender.js";
import type { RouteCatalogue } from "./RouteCatalogue.js";

/** The sample event a route test sends: a note of a device, as if it had synced it. */
export interface SampleEvent {
  deviceUid: string;
  file: string;
  body?: JsonObject;
  /** Base64. */
  payload?: string;
}

/**
 * The hosted console's "test route": a sample event sent through one route only, once, as it
 * stands (enabled or not, whatever its filters say), never stored as an event of the project, so
 * no other route, smart fleet or events listing sees it. The attempt is logged for the route with
 * source `test` and told to the live feed like any delivery.
 */
export class RouteTester {
  constructor(
    private readonly store: HubStore,
    private readonly clock: Clock,
    private readonly ids: HubIds,
    private readonly catalogue: RouteCatalogue,
    private readonly sender: AttemptSender,
    /** Attempts and web requests in flight (shared with the delivery queue: a stop waits for them). */
    private readonly inflight: Set<Promise<void>>,
    private readonly onAttempt: (log: RouteLogRecord) => void,
  ) {}

  /** Sends the sample; resolves with the attempt's log, or undefined when the project has no such route. */
  async test(projectUid: string, routeUid: string, sample: SampleEvent): Promise<RouteLogRecord | undefined> {
    const route = await this.catalogue.get(projectUid, routeUid);
    if (!route) return undefined;
    const now = this.clock.now();
    const data: JsonObject = { req: "note.add", app: projectUid, best_id: sample.deviceUid };
    if (sample.body !== undefined) data.body = sample.body;
    if (sample.payload !== undefined) data.payload = sample.payload;
    const event: EventRecord = {
      uid: this.ids.uuid(),
      projectUid,
      deviceUid: sample.deviceUid,
      sessionUid: null,
      file: sample.file,
      received: now / 1000,
      whenSec: Math.floor(now / 1000),
      data,
    };
    const sending = this.sender.deliver(route, event);
    const done = sending.then(
      () => undefined,
      () => undefined,
    );
    this.inflight.add(done);
    let outcome;
    try {
      outcome = await sending;
    } finally {
      this.inflight.delete(done);
    }
    const base = { projectUid, routeUid: route.uid, eventUid: event.uid, deviceUid: event.deviceUid };
    const log: RouteLogRecord = {
      ...base,
      file: event.file,
      dateMs: now,
      durationMs: this.clock.now() - now,
      source: "test",
      ...(outcome.kind === "logged"
        ? { attn: outcome.attn, status: outcome.status, text: outcome.text, url: outcome.url }
        : outcome.kind === "skip"
          ? {
              attn: false,
              status: "skipped",
              text: "the route's transform dropped the sample ($doNotRoute)",
              url: "",
            }
          : { attn: true, status: "aborted", text: "the hub stopped during the test", url: "" }),
    };
    await this.store.routes.addLog(log);
    this.onAttempt(log);
    return log;
  }
}
