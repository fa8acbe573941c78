import type { ModuleCore } from "../ModuleCore.js";
import { calibrationOffset, voltageSettings } from "./VoltagePolicy.js";

/** The health notefile the module logs its own events to. */
export const HEALTH_FILE = "_health.qo";

/**
 * What the module does when USB power comes or goes (runs in a transaction, in request order):
 * with `card.voltage usb:true alert:true` it queues a `_health.qo` note dated at the change.
 * The `sync:true` half (sync on the change) is carried out by the sync engine.
 */
export function onUsbPowerChange(module: ModuleCore, usb: boolean, at: number, volts: number): void {
  const settings = voltageSettings(module);
  if (!settings.usb || !settings.alert) return;
  const now = module.time();
  const time = now === undefined ? 0 : Math.max(0, now - Math.round((module.clock.now() - at) / 1000));
  module.notebox.appendToQueue(HEALTH_FILE, {
    body: {
      text: usb ? "USB power connected" : "USB power disconnected",
      voltage: volts + calibrationOffset(module),
    },
    time,
  });
}
