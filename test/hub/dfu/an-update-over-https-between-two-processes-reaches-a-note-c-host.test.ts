import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:https";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NoteCHost } from "../../../harness/host/NoteCHost.js";
import { NoteCIap } from "../../../harness/host/NoteCIap.js";
import { NOTE_C_TIMING } from "../../../harness/host/NoteCTiming.js";
import { SerialHostTransport } from "../../../harness/host/SerialHostTransport.js";
import { TcpLink } from "../../../hil/links/TcpLink.js";
import { SystemClock } from "../../../runtime/SystemClock.js";
import type { HubCredentials } from "../../../runtime/startHub.js";
import { SESSION_LOGGED, startCli, syncAndWait, type CliProcess } from "../../support/cliProcess.js";
import { hostFirmware } from "./support/hostFirmware.js";

/**
 * The whole update end to end, as a user runs it: `cardsim hub` and `cardsim module --hub URL`
 * as two processes talking HTTPS (the hub's CA), an image uploaded through the API, the update
 * requested through the API, the module downloading it over several sessions with a power loss
 * in between (the module process killed and started again on its flash directory), and a note-c
 * host on the module's TCP line reading it with dfu.get, base64 and binary; the MD5 matches and
 * the hub's DFU status and history show the update completed.
 */

const md5 = (b: Uint8Array) => createHash("md5").update(b).digest("hex");

interface Api {
  (
    method: string,
    path: string,
    body?: Buffer | object,
    contentType?: string,
  ): Promise<{ status: number; json: unknown }>;
}

function api(creds: HubCredentials, ca: string): Api {
  return (method, path, body, contentType) =>
    new Promise((resolve, reject) => {
      const payload =
        body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
      const req = request(
        `${creds.hub_tls_url}${path}`,
        {
          method,
          ca,
          headers: {
            authorization: `Bearer ${creds.token}`,
            ...(payload
              ? { "content-type": contentType ?? "application/json", "content-length": payload.length }
              : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            let json: unknown;
            try {
              json = text ? JSON.parse(text) : undefined;
            } catch {
              json = text;
            }
            resolve({ status: res.statusCode ?? 0, json });
          });
        },
      );
      req.on("error", reject);
      if (payload) req.write(payload);
      req.end();
    });
}

/** A note-c host on the module's TCP line, on the real clock. */
async function noteCHost(address: string): Promise<{ host: NoteCHost; close: () => Promise<void> }> {
  const [hostname, port] = address.split(":");
  const socket = connect(Number(port), hostname!);
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  const link = new TcpLink(socket);
  const clock = new SystemClock();
  const host = new NoteCHost({ clock, transport: new SerialHostTransport(link, clock, NOTE_C_TIMING) });
  return { host, close: () => link.close() };
}

describe("an update over HTTPS between two processes", () => {
  let dir: string;
  let hub: CliProcess;
  let creds: HubCredentials;
  let call: Api;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cardsim-dfu-e2e-"));
    hub = startCli([
      "hub",
      "--dir",
      join(dir, "hub"),
      "--listen",
      "127.0.0.1:0",
      "--tls-listen",
      "127.0.0.1:0",
      "--log-level",
      "warn",
    ]);
    await hub.waitFor(/credentials\s+(\S+)/);
    creds = JSON.parse(readFileSync(join(dir, "hub", "credentials.json"), "utf8")) as HubCredentials;
    call = api(creds, readFileSync(creds.ca_cert!, "utf8"));
  }, 60_000);

  afterAll(async () => {
    await hub?.stop("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  const startModule = async () => {
    const module = startCli([
      "module",
      "--dir",
      join(dir, "module"),
      "--tcp",
      "127.0.0.1:0",
      "--hub",
      creds.hub_tls_url!,
      "--hub-ca",
      creds.ca_cert!,
      "--product",
      creds.product_uid,
      "--seed",
      "dfu-e2e",
      "--log-level",
      "info",
    ]);
    const address = (await module.waitFor(/tcp\s+(\S+:\d+)/))[1]!;
    // The session it opens at start has ended (and is logged) before the test asks for its own.
    await module.waitFor(/synced with the hub|first sync failed/);
    await module.waitForLogs(SESSION_LOGGED, 1);
    return { module, ...(await noteCHost(address)) };
  };

  it.each([false, true])(
    "uploads, requests, downloads across a power loss and installs through the IAP flow (binary %s)",
    async (binary) => {
      const image = hostFirmware(1_300_000, { product: "Pump", version: binary ? "3.0.1" : "3.0.0" });
      const up = await call(
        "PUT",
        `/v1/projects/${creds.project_uid}/firmware/host/pump.bin`,
        image,
        "application/octet-stream",
      );
      expect(up.status).toBe(200);
      const filename = (up.json as { filename: string }).filename;

      let running = await startModule();
      // The sync schedule arrives with the sync modes: the host asks for each session.
      const sync = async () => {
        const status = await syncAndWait(running.module, (req) => running.host.request(req));
        if (status["alert"]) throw new Error(`the sync failed: ${JSON.stringify(status)}`);
      };
      await sync(); // the first session provisions the device
      const device = (await running.host.request({ req: "card.version" }))["device"] as string;
      const asked = await call(
        "POST",
        `/v1/projects/${creds.project_uid}/dfu/host/update?deviceUID=${device}`,
        { filename },
      );
      expect(asked.status).toBe(200);

      await sync(); // the first 512 KiB
      expect((await running.host.request({ req: "dfu.status" }))["mode"]).toBe("downloading");
      // The power fails: the module process dies at once and starts again on its flash.
      await running.close();
      expect(await running.module.stop("SIGKILL")).toBe("SIGKILL");
      running = await startModule();
      await sync();
      await sync();
      const iap = new NoteCIap(running.host, new SystemClock(), {
        binary,
        chunk: 8192,
        pollMs: 500,
      });
      const result = await iap.run();
      expect(result.outcome).toBe("installed");
      expect(result.md5).toBe(md5(image));
      await sync(); // the module tells the hub
      const status = await call("GET", `/v1/projects/${creds.project_uid}/devices/${device}/dfu/host/status`);
      expect(status.json).toMatchObject({ device_uid: device, dfu_in_progress: false });
      const history = (
        await call("GET", `/v1/projects/${creds.project_uid}/devices/${device}/dfu/host/history`)
      ).json as { history: { updates: { phase: string }[] }[] };
      expect(history.history[0]!.updates.map((u) => u.phase)).toEqual([
        "requested",
        "downloading",
        "ready",
        "completed",
      ]);
      await running.close();
      expect(await running.module.stop("SIGTERM")).toBe(0);
    },
    180_000,
  );
});
