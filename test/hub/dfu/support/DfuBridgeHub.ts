import { SeededRandom } from "../../../../core/SeededRandom.js";
import type { Clock } from "../../../../core/Clock.js";
import type { HubLink } from "../../../../firmware/radio/HubLink.js";
import { SimHubLink } from "../../../../firmware/radio/SimHubLink.js";
import { bootstrapHub, NO_SIGN_IN } from "../../../../hub/bootstrap.js";
import { HubIds } from "../../../../hub/HubIds.js";
import { createHubServices, type HubServices } from "../../../../hub/HubServices.js";
import type { FirmwareType } from "../../../../hub/store/FirmwareStore.js";
import type { HubStore } from "../../../../hub/store/HubStore.js";
import { FakeClock } from "../../../../runtime/FakeClock.js";
import {
  DFU_MESSAGE_TYPES,
  type OpenRequest,
  type ProtocolReply,
  type ProtocolRequest,
  type ReadReply,
} from "../../../../protocol/messages.js";
import { MockHub } from "../../../firmware/sync/support/MockHub.js";
import { openTestStore, type Backend } from "../../../support/backends.js";

/**
 * The real hub's DFU service (firmware store, requests, history, on a real store) behind a
 * scripted sync session (MockHub): the module's firmware messages reach `services.dfu`, as the
 * sync service will hand them over once it is merged; everything else is MockHub's.
 *
 * Tests take their link from `link()`. To run the same tests over the real sync service, build the
 * link as `new SimHubLink((r) => services.sync.handle(r, { secure: true }), { clock })` instead:
 * nothing else changes (devices are then registered by the hub's own `open`).
 */
export class DfuBridgeHub {
  readonly session = new MockHub();
  /** Damages the data of read replies it returns true for (the MD5 stays the original's). */
  damage: (offset: number) => boolean = () => false;
  /** Messages of the firmware section the bridge handed to the DFU service. */
  readonly dfuMessages: ProtocolRequest[] = [];

  private constructor(
    readonly services: HubServices,
    readonly store: HubStore,
    /** The hub's clock: the one it was started with, until `attach` gives it the module's. */
    readonly clock: Clock,
    private readonly time: { target: Clock },
    readonly projectUid: string,
    readonly productUid: string,
  ) {}

  /** `backend`: the database (default SQLite in memory). */
  static async start(clock: Clock = new FakeClock(), seed = 7, backend?: Backend): Promise<DfuBridgeHub> {
    const store = await openTestStore(backend);
    const ids = new HubIds(new SeededRandom(seed));
    const time = { target: clock };
    const delegate: Clock = {
      now: () => time.target.now(),
      setTimer: (callback, ms) => time.target.setTimer(callback, ms),
      clearTimer: (handle) => time.target.clearTimer(handle),
    };
    const services = createHubServices({ store, clock: delegate, ids, rateLimits: false });
    const { state } = await bootstrapHub(store, ids, delegate, NO_SIGN_IN);
    return new DfuBridgeHub(services, store, delegate, time, state.project_uid, state.product_uid);
  }

  /** From now on the hub reads `clock` (a scenario's), so hub and module share one time. */
  attach(clock: Clock): void {
    this.time.target = clock;
  }

  /** The module's link to this hub (messages copied as on a wire, the radio's latency on `clock`). */
  link(): HubLink {
    return new SimHubLink((request) => this.respond(request), { clock: this.clock });
  }

  async respond(request: ProtocolRequest): Promise<ProtocolReply> {
    if (request.type === "open") {
      const open = request as OpenRequest;
      await this.services.devices.register({
        deviceUid: open.device,
        projectUid: this.projectUid,
        productUid: this.productUid,
        firmwareModule: JSON.stringify(open.context.firmware),
      });
      this.session.time = this.clock.now();
    }
    if (!(DFU_MESSAGE_TYPES as readonly string[]).includes(request.type))
      return this.session.respond(request);
    this.dfuMessages.push(request);
    const device = (this.session.messages.findLast((m) => m.type === "open") as OpenRequest | undefined)
      ?.device;
    const reply = await this.services.dfu.handleSyncMessage(
      { deviceUid: device ?? "", projectUid: this.projectUid },
      request,
    );
    if (
      request.type === "read" &&
      typeof reply["data"] === "string" &&
      this.damage(request["offset"] as number)
    ) {
      const data = reply["data"];
      const flipped = data[0] === "A" ? "B" : "A";
      return { ...(reply as ReadReply), data: flipped + data.slice(1) };
    }
    return reply;
  }

  /** Uploads an image as the API does; returns its stored name. */
  async upload(type: FirmwareType, source: string, content: Uint8Array, version?: string): Promise<string> {
    const record = await this.services.firmware.upload(this.projectUid, type, {
      source,
      content,
      ...(version ? { version } : {}),
    });
    return record.filename;
  }

  /** The API's update action for one device. */
  async requestUpdate(type: FirmwareType, filename: string, deviceUid: string): Promise<void> {
    const device = await this.store.devices.getDevice(deviceUid);
    if (!device) throw new Error(`no device ${deviceUid} on the hub yet (it registers at its first session)`);
    await this.services.dfu.requestUpdate(this.projectUid, type, filename, [device]);
  }

  async cancel(type: FirmwareType, deviceUid: string): Promise<void> {
    const device = (await this.store.devices.getDevice(deviceUid))!;
    await this.services.dfu.cancel(this.projectUid, type, [device]);
  }

  /** The device's newest request, its record's dfu object, and its health log. */
  async dfuOf(type: FirmwareType, deviceUid: string) {
    const device = (await this.store.devices.getDevice(deviceUid))!;
    return {
      request: await this.services.dfu.latest(device, type),
      record: device.details.dfu,
      log: await this.store.telemetry.listHealthLog(this.projectUid, deviceUid, { types: ["dfu_completed"] }),
    };
  }

  async close(): Promise<void> {
    await this.store.close();
  }
}
