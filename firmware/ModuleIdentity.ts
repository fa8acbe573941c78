import { encodeBase64 } from "../core/base64.js";
import type { JsonObject } from "../core/json.js";
import { randomInt } from "../core/Random.js";
import { CARD_KEYS } from "./config/CardSettings.js";
import type { ModuleCore } from "./ModuleCore.js";
import { SimError } from "./SimError.js";
import type { RecoveryReport } from "./storage/KvStore.js";
import type { Notebox } from "./storage/Notebox.js";
import type { IdentityRecord, KeyRecord } from "./sync/SyncEngine.js";

/**
 * The identity record joined with the key record, per identity record: configuration records are
 * replaced, never changed in place, so the pair read at every session is joined once.
 */
const joined = new WeakMap<IdentityRecord, { readonly key: KeyRecord; readonly record: IdentityRecord }>();

/** The module's identity as its flash keeps it: the DeviceUID, with its key pair once it has one. */
export function readIdentity(box: Notebox): IdentityRecord {
  const identity = box.config<IdentityRecord>(CARD_KEYS.identity) ?? { device: "" };
  const key = box.config<KeyRecord>(CARD_KEYS.key);
  if (!key) return identity;
  const known = joined.get(identity);
  if (known?.key === key) return known.record;
  const record = { ...identity, key };
  joined.set(identity, { key, record });
  return record;
}

/**
 * At boot: makes the DeviceUID at first boot, and the key pair the module proves it to its hub
 * with (kept in its own record; made at a later boot if the flash had no room, or had none before).
 */
export async function ensureIdentity(
  module: Pick<ModuleCore, "notebox" | "crypto" | "random" | "log">,
  wanted?: string,
): Promise<void> {
  const box = module.notebox;
  const identity = box.config<IdentityRecord>(CARD_KEYS.identity);
  if (identity && box.config<KeyRecord>(CARD_KEYS.key)) return;
  const keys = await module.crypto.generateKeyPair();
  const key: KeyRecord = { private: encodeBase64(keys.privateKey), public: encodeBase64(keys.publicKey) };
  const device = identity ?? { device: wanted ?? newDeviceUid(module) };
  try {
    await box.transact(() => {
      box.setConfig(CARD_KEYS.identity, device);
      box.setConfig(CARD_KEYS.key, key);
    });
  } catch (error) {
    // Only a full flash is survivable here: the module boots without a key (and cannot sync
    // until there is room); anything else (the power went) fails the boot as it would.
    if (!(error instanceof SimError && error.has("file-storage-full"))) throw error;
    module.log.warn("no room in flash for the module's key pair: it cannot sync until there is", {
      error: error.message,
    });
    if (!identity) await box.transact(() => box.setConfig(CARD_KEYS.identity, device));
  }
}

/** At boot: tells the hub what the flash repaired, as a `_health.qo` note (the module boots regardless). */
export async function noteFlashRecovery(
  module: Pick<ModuleCore, "notebox" | "noteTime" | "log">,
  recovery: RecoveryReport,
): Promise<void> {
  const body: JsonObject = { text: `flash recovered: ${recovery.details.join("; ")}` };
  if (recovery.truncatedBytes) body["truncated_bytes"] = recovery.truncatedBytes;
  if (recovery.droppedRecords) body["dropped_records"] = recovery.droppedRecords;
  try {
    await module.notebox.transact(() =>
      module.notebox.appendToQueue("_health.qo", { body, time: module.noteTime() }),
    );
  } catch (error) {
    module.log.error("could not store the flash recovery note", { error: String((error as Error)?.message) });
  }
}

/** A new DeviceUID: `dev:8` and 14 random digits. */
function newDeviceUid(module: Pick<ModuleCore, "random">): string {
  let digits = "8";
  for (let i = 0; i < 14; i++) digits += String(randomInt(module.random, 10));
  return `dev:${digits}`;
}
