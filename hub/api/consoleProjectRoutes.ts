import { decodeBase64 } from "../../core/base64.js";
import type { JsonObject } from "../../core/json.js";
import { notefileNameFault } from "../../core/notefileNames.js";
import { DEVICE_UID } from "../devices/deviceUid.js";
import * as errors from "../errors.js";
import type { HubRouter } from "./HubRouter.js";
import { ROUTE_TEST } from "./requestBodies.js";
import { routeLogView } from "./routeRoutes.js";

/** Devices whose signal one request asks for at most: a page of the console's devices table. */
export const MAX_SIGNAL_DEVICES = 100;

/** The signal members of a session record (`sessionRadio`'s, with when the session began). */
const SIGNAL_FIELDS = ["rat", "bearer", "rssi", "rsrp", "rsrq", "sinr", "bars"] as const;

/**
 * What the console asks of a project beyond the hub's REST API: the latest signal of its devices
 * (the radio of each one's newest session record, as the hosted console's device list shows it),
 * and a route test that sends a sample event through one route without storing it.
 */
export function registerConsoleProjectRoutes(router: HubRouter): void {
  const { store, routing } = router.services;
  const P = "/console/api/projects/:projectUID";

  router.project("GET", `${P}/signals`, "viewer", async (ctx) => {
    const uids = ctx.query.list("deviceUID", { comma: true });
    if (uids.length > MAX_SIGNAL_DEVICES)
      throw errors.queryInvalid("deviceUID", `names at most ${MAX_SIGNAL_DEVICES} devices`);
    const signals: JsonObject = {};
    await Promise.all(
      [...new Set(uids)].map(async (uid) => {
        const newest = await store.telemetry.listSessions(
          ctx.project.uid,
          uid,
          { firstSyncOnly: false },
          { offset: 0, limit: 1 },
        );
        const session = newest.items[0];
        if (!session) return;
        const signal: JsonObject = { when: session.beganSec };
        for (const key of SIGNAL_FIELDS) {
          const value = session.data[key];
          if (value !== undefined) signal[key] = value;
        }
        signals[uid] = signal;
      }),
    );
    return { signals };
  });

  router.project("POST", `${P}/routes/:routeUID/test`, "developer", async (ctx) => {
    const sample = ctx.body(ROUTE_TEST);
    if (!DEVICE_UID.test(sample.device)) throw errors.invalidDeviceUid(sample.device);
    const fault = notefileNameFault(sample.file);
    if (fault) throw errors.fieldInvalid("file", `is not a notefile name (${fault})`);
    if (sample.payload !== undefined && !decodeBase64(sample.payload))
      throw errors.fieldInvalid("payload", "is not base64");
    const routeUid = ctx.params.routeUID!;
    const log = await routing.test(ctx.project.uid, routeUid, {
      deviceUid: sample.device,
      file: sample.file,
      ...(sample.body !== undefined ? { body: sample.body } : {}),
      ...(sample.payload !== undefined ? { payload: sample.payload } : {}),
    });
    if (!log) throw errors.hubRouteNotFound(routeUid);
    return routeLogView(log);
  });
}
