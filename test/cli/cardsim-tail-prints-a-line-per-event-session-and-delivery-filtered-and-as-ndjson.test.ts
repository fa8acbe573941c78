import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHub, startLocal, type LocalSetup } from "cardsim";
import { runCli, startCli, type CliProcess } from "../support/cliProcess.js";

describe("cardsim tail", () => {
  let dir: string;
  let local: LocalSetup;
  let receiver: Server;
  const tails: CliProcess[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "cardsim-tail-"));
    local = await startLocal({
      dir,
      hub: { listen: "127.0.0.1:0", tlsListen: false },
      module: { tcp: false },
    });
    receiver = createServer((request, response) => {
      request.resume();
      request.on("end", () => response.writeHead(200, { "content-type": "text/plain" }).end("thanks"));
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const { url, credentials } = local.hub;
    const response = await fetch(`${url}/v1/projects/${credentials.project_uid}/routes`, {
      method: "POST",
      headers: { authorization: `Bearer ${credentials.token}`, "content-type": "application/json" },
      body: JSON.stringify({
        label: "receiver",
        type: "http",
        http: {
          url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/in`,
          filter: { type: "include", files: ["readings.qo"] },
        },
      }),
    });
    expect(response.status).toBe(201);
  });

  afterAll(async () => {
    for (const tail of tails) await tail.stop();
    await local?.close();
    receiver?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const follow = async (args: string[]) => {
    const tail = startCli(["tail", "--dir", dir, ...args]);
    tails.push(tail);
    await tail.waitForStderr(/following http:\/\/127\.0\.0\.1:\d+/);
    return tail;
  };

  it("prints the note's event, the session that brought it and the route's delivery, a line each, as they happen", async () => {
    const all = await follow([]);
    const json = await follow(["--file", "readings.qo", "--json"]);
    const module = local.module.module;
    const device = module.deviceUid;
    await module.request({
      req: "note.add",
      file: "readings.qo",
      body: { temp: 21.5, note: "<script>x</script>" },
    });
    module.sync.request({ why: "explicit" });
    await module.sync.idle();

    const at = "\\d\\d:\\d\\d:\\d\\d\\.\\d{3}";
    await all.waitFor(
      new RegExp(`${at} event {4}${device} readings\\.qo \\{"temp":21\\.5,"note":"<script>x</script>"\\}`),
    );
    await all.waitFor(new RegExp(`${at} session  ${device} began \\(explicit\\)`));
    await all.waitFor(
      new RegExp(`${at} session  ${device} ended: .*, \\d+ s, .* up / .* down, 1 notes up / 0 down`),
    );
    await all.waitFor(
      new RegExp(`${at} delivery route route:\\S+ readings\\.qo of ${device} -> 200 in \\d+ ms`),
    );
    // The session's own _session.qo events are told by the session lines, not twice.
    expect(all.stdout()).not.toMatch(/event {4}\S+ _session\.qo/);

    const line = (await json.waitFor(/^\{"kind":"event".*\}$/m))[0];
    expect(JSON.parse(line)).toMatchObject({
      kind: "event",
      deviceUid: device,
      file: "readings.qo",
      event: { device, file: "readings.qo", body: { temp: 21.5 } },
    });
    // Filtered by notefile: the session's lines and the other events stay out; deliveries of it come in.
    await json.waitFor(/^\{"kind":"delivery".*"file":"readings\.qo".*\}$/m);
    expect(json.stdout()).not.toMatch(/"kind":"session"/);
    for (const text of json.stdout().trim().split("\n")) expect(() => JSON.parse(text)).not.toThrow();
  });

  it("answers a mistake with one line: --hub without --token, no credentials, an unknown kind", async () => {
    const noToken = await runCli(["tail", "--hub", "http://127.0.0.1:1"]);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr.trim()).toBe(
      "cardsim tail: give --hub URL and --token T together (or neither: --dir D's credentials.json says them)",
    );
    const empty = await mkdtemp(join(tmpdir(), "cardsim-tail-empty-"));
    const none = await runCli(["tail", "--dir", empty]);
    expect(none.code).toBe(2);
    expect(none.stderr.trim().split("\n")).toHaveLength(1);
    expect(none.stderr).toMatch(
      /no hub credentials in .*credentials\.json: start a hub with cardsim hub --dir/,
    );
    await rm(empty, { recursive: true, force: true });
    const kinds = await runCli(["tail", "--dir", dir, "--kinds", "event,gossip"]);
    expect(kinds.code).toBe(2);
    expect(kinds.stderr.trim()).toMatch(
      /^cardsim tail: query argument kinds must be one of event, session, delivery, dfu$/,
    );
  });

  it("says when the hub went away and reconnects by itself when it is back (--hub and --token)", async () => {
    const hubDir = await mkdtemp(join(tmpdir(), "cardsim-tail-restart-"));
    let hub = await startHub({ dir: hubDir, listen: "127.0.0.1:0", tlsListen: false });
    const port = new URL(hub.url).port;
    const tail = startCli(["tail", "--hub", hub.url, "--token", hub.credentials.token]);
    tails.push(tail);
    try {
      await tail.waitForStderr(/following http:\/\/127\.0\.0\.1:\d+/);
      await hub.close();
      await tail.waitForStderr(/the hub at http:\/\/127\.0\.0\.1:\d+ closed the stream; reconnecting/);
      hub = await startHub({ dir: hubDir, listen: `127.0.0.1:${port}`, tlsListen: false });
      await tail.waitForStderr(/reconnected to http:\/\/127\.0\.0\.1:\d+/);
      await hub.services.events.record({
        projectUid: hub.credentials.project_uid,
        deviceUid: "dev:000000000000042",
        file: "after.qo",
        data: { req: "note.add", body: { back: true } },
      });
      await tail.waitFor(/event {4}dev:000000000000042 after\.qo \{"back":true\}/);
    } finally {
      await tail.stop();
      await hub.close();
      await rm(hubDir, { recursive: true, force: true });
    }
  });
});
