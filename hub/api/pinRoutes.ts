import { hashDevicePin, newDevicePin } from "../auth/devicePin.js";
import type { HubRouter } from "./HubRouter.js";
import { deviceEnvironment, putEnvironment } from "./envRoutes.js";
import { resolveDevice } from "./resolve.js";

/**
 * Device PINs: a developer of the project issues a device's PIN (ours: the hub keeps only its
 * hash, so it is shown once, when issued), and an app holding it reads and sets that one device's
 * environment variables without a user's token (GetDeviceEnvironmentVariablesByPin,
 * SetDeviceEnvironmentVariablesByPin).
 */
export function registerPinRoutes(router: HubRouter): void {
  const { store } = router.services;

  router.project("POST", "/v1/projects/:projectUID/devices/:deviceUID/pin", "developer", async (ctx) => {
    const device = await resolveDevice(ctx, ctx.params.deviceUID!);
    const pin = newDevicePin();
    const pinHash = await hashDevicePin(pin);
    await store.transaction(() =>
      store.devices.putDevice({
        uid: device.uid,
        projectUid: device.projectUid,
        productUid: device.productUid,
        details: { pinHash },
      }),
    );
    // Wrong guesses at the PIN this one replaces no longer hold its holder back.
    await router.services.pins.succeeded(device.uid);
    return { device_uid: device.uid, pin };
  });

  const path = "/v1/products/:productUID/devices/:deviceUID/environment_variables_with_pin";
  router.devicePin("GET", path, async (ctx) => deviceEnvironment(ctx.services, ctx.device));
  router.devicePin("PUT", path, async (ctx) =>
    putEnvironment(ctx, ctx.project.uid, { kind: "device", uid: ctx.device.uid }),
  );
}
