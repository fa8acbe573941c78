import type { Clock } from "../../core/Clock.js";
import type { JsonObject } from "../../core/json.js";
import { ServiceError } from "../ServiceError.js";
import type { HubStore } from "../store/HubStore.js";
import type { DeviceRecord, ProductRecord, SignalRecord } from "../store/records.js";
import type { SyncNotifier } from "../sync/SyncNotifier.js";

/** What the API's Provision Device sets up for a device that has not connected yet. */
export interface DeviceProvisioning {
  productUid: string;
  serialNumber?: string;
  /** Fleets to join (the product's auto-provision fleets are added). */
  fleetUids?: string[];
  /** The public key (PEM, checked) the device must prove at its sessions: pinned before it connects. */
  publicKey?: string;
}

/** What a module tells the hub about itself when it registers (its first session, `cardsim up`). */
export interface DeviceRegistration {
  deviceUid: string;
  projectUid: string;
  productUid: string;
  sku?: string | null;
  /** The module's firmware version as it reports it (JSON text of card.version's body). */
  firmwareModule?: string | null;
  serialNumber?: string | null;
}

/**
 * Devices as the hub's rules make them, on the hub clock, each change one store transaction.
 * Refusals are `ServiceError`s (`product-elsewhere`, `fleet-elsewhere`, `device-elsewhere`,
 * `device-active`).
 */
export class DeviceService {
  constructor(
    private readonly store: HubStore,
    private readonly clock: Clock,
    private readonly notifier?: SyncNotifier,
  ) {}

  /**
   * Queues a signal for the device (the API's Send Signal): the device sync delivers it, at once
   * to a module holding a continuous session (told once the signal is committed).
   */
  async signal(device: DeviceRecord, body: JsonObject): Promise<SignalRecord> {
    const signal = await this.store.devices.queueSignal(device.uid, body, this.clock.now());
    this.store.afterCommit(() => this.notifier?.notify(device.uid, "signal"));
    return signal;
  }

  async #product(projectUid: string, productUid: string): Promise<ProductRecord> {
    const product = await this.store.projects.getProduct(productUid);
    if (!product || product.projectUid !== projectUid) {
      throw new ServiceError(
        "product-elsewhere",
        productUid,
        `product ${productUid} is not in ${projectUid}`,
      );
    }
    return product;
  }

  async #deviceOf(projectUid: string, deviceUid: string): Promise<DeviceRecord | undefined> {
    const device = await this.store.devices.getDevice(deviceUid);
    if (device && device.projectUid !== projectUid) {
      throw new ServiceError("device-elsewhere", deviceUid, `device ${deviceUid} belongs to another project`);
    }
    return device;
  }

  /**
   * The API's Provision Device: the device is created (or, while it has never connected,
   * replaced) in the product, with the product's default enablement and auto-provision fleets;
   * it gets all of that when it first connects. Keeps an earlier provisioning time and serial.
   */
  async provision(projectUid: string, deviceUid: string, request: DeviceProvisioning): Promise<DeviceRecord> {
    return this.store.transaction(async () => {
      const product = await this.#product(projectUid, request.productUid);
      const fleetUids = request.fleetUids ?? [];
      for (const uid of fleetUids) {
        const fleet = await this.store.projects.getFleet(uid);
        if (!fleet || fleet.projectUid !== projectUid) {
          throw new ServiceError("fleet-elsewhere", uid, `fleet ${uid} is not in ${projectUid}`);
        }
      }
      const existing = await this.#deviceOf(projectUid, deviceUid);
      if (existing && existing.lastActivity !== null) {
        throw new ServiceError("device-active", deviceUid, `device ${deviceUid} has connected already`);
      }
      return this.store.devices.putDevice({
        uid: deviceUid,
        projectUid,
        productUid: product.uid,
        serialNumber: request.serialNumber ?? existing?.serialNumber ?? null,
        provisioned: existing?.provisioned ?? this.clock.now(),
        disabled: product.disableDevicesByDefault,
        fleetUids: [...new Set([...fleetUids, ...(product.autoProvisionFleets ?? [])])],
        ...(request.publicKey ? { publicKey: request.publicKey } : {}),
      });
    });
  }

  /**
   * Pins the public key (PEM, checked) the device must prove at every session from now on, in
   * place of any it had (`PUT …/public-key`).
   */
  async pinPublicKey(device: DeviceRecord, publicKey: string): Promise<DeviceRecord> {
    return this.store.transaction(() =>
      this.store.devices.putDevice({
        uid: device.uid,
        projectUid: device.projectUid,
        productUid: device.productUid,
        publicKey,
      }),
    );
  }

  /**
   * A module registering itself, as the hub does at its first session: an unknown device is
   * created in the product now (hub clock), with the product's default enablement and
   * auto-provision fleets; a known one takes what the module reports (SKU, firmware, serial) and
   * keeps everything else (its product, provisioning time, a disabled state set through the API).
   * Registering again is harmless.
   */
  async register(registration: DeviceRegistration): Promise<DeviceRecord> {
    const { deviceUid, projectUid, sku, firmwareModule, serialNumber } = registration;
    return this.store.transaction(async () => {
      const product = await this.#product(projectUid, registration.productUid);
      const reported = { uid: deviceUid, projectUid, sku, firmwareModule, serialNumber };
      const known = await this.#deviceOf(projectUid, deviceUid);
      if (known) {
        // Most sessions report what the hub holds already: nothing to write then.
        const same = <T>(value: T | undefined, held: T) => value === undefined || value === held;
        if (
          same(sku, known.sku) &&
          same(firmwareModule, known.firmwareModule) &&
          same(serialNumber, known.serialNumber)
        )
          return known;
        return this.store.devices.putDevice({ ...reported, productUid: known.productUid });
      }
      return this.store.devices.putDevice({
        ...reported,
        productUid: product.uid,
        provisioned: this.clock.now(),
        disabled: product.disableDevicesByDefault,
        fleetUids: product.autoProvisionFleets ?? [],
      });
    });
  }
}
