import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeBase64, encodeBase64 } from "../../../core/base64.js";
import { SessionTickets } from "../../../hub/sync/SessionTickets.js";
import { TICKET_MS } from "../../../hub/sync/SyncService.js";
import { deviceNote } from "./support/ScriptedModule.js";
import { SyncFixture } from "./support/syncFixture.js";

/**
 * Resumed sessions (docs/sync-protocol.md, "Resumed sessions"): an open that proved the key with a
 * signature over TLS is answered a ticket; later opens present it instead of a hello and a
 * signature until it expires, for the device, product and key it was given for only.
 */

const code = (reply: { err?: string }): string | undefined => /^\{([a-z-]+)\}/.exec(reply.err ?? "")?.[1];

describe("session tickets over TLS (in process)", () => {
  let hub: SyncFixture;
  beforeAll(async () => {
    hub = await SyncFixture.start("in process");
  });
  afterAll(async () => hub.close());

  it("answers a proven open with a ticket, and opens a session for it with no hello and no signature", async () => {
    const module = await hub.module();
    const proven = await module.open();
    expect(proven.err).toBeUndefined();
    expect(typeof proven.ticket).toBe("string");
    expect(proven.ticket_expires).toBe(hub.clock.now() + TICKET_MS);
    await module.close();

    await hub.clock.advance(5 * 60_000);
    const resumed = await module.resume();
    expect(resumed.err).toBeUndefined();
    // A resumed open gets no new ticket: the lifetime runs from the proof.
    expect(resumed).not.toHaveProperty("ticket");
    expect(resumed).toMatchObject({ time: hub.clock.now(), reset: false, tracker: proven.tracker });
    // The session works like any other.
    expect(await module.push("sensors.qo", [deviceNote("1", { body: { t: 1 } })])).toMatchObject({
      merged: 1,
    });
    expect((await module.close()).err).toBeUndefined();
    const device = await hub.store.devices.getDevice(module.device);
    expect(device?.lastActivity).toBe(hub.clock.now());
  });

  it("refuses an expired ticket with {ticket}, and a new proof then earns a new one", async () => {
    const module = await hub.module();
    await module.open();
    const first = module.ticket;
    await hub.clock.advance(TICKET_MS);
    expect((await module.resume()).err).toBeUndefined();
    await hub.clock.advance(1);
    const refused = await module.resume();
    expect(code(refused)).toBe("ticket");
    expect(refused.err).toContain("the session ticket has expired: prove the key again");
    const proven = await module.open();
    expect(proven.err).toBeUndefined();
    expect(proven.ticket).not.toBe(first);
  });

  it("refuses a forged ticket, another device's, and one of another product with {ticket}", async () => {
    const a = await hub.module();
    const b = await hub.module();
    await a.open();
    await b.open();
    const bytes = decodeBase64(a.ticket)!;
    bytes[bytes.length - 1]! ^= 1;
    const forged = await a.resume({ ticket: encodeBase64(bytes) });
    expect(code(forged)).toBe("ticket");
    expect(forged.err).toContain("not issued to this device and product");
    const stolen = await b.resume({ ticket: a.ticket });
    expect(code(stolen)).toBe("ticket");
    expect(stolen.err).toContain("not issued to this device and product");
    expect(code(await a.resume({ ticket: "not a ticket" }))).toBe("ticket");
    // None of them opened a session: the devices' own tickets still do.
    expect((await a.resume()).err).toBeUndefined();
    expect((await b.resume()).err).toBeUndefined();
  });

  it("refuses a ticket sealed with another key of the hub (a restart), saying so", async () => {
    const module = await hub.module();
    await module.open();
    const other = new SessionTickets(TICKET_MS, new Uint8Array(32).fill(7));
    const foreign = other.issue(
      module.device,
      module.product,
      module.publicKeyPem,
      hub.clock.now() + 60_000,
    )!;
    const refused = await module.resume({ ticket: foreign });
    expect(code(refused)).toBe("ticket");
    expect(refused.err).toContain("another key of the hub");
  });

  it("stops taking a device's ticket once another key is pinned for it", async () => {
    const module = await hub.module();
    await module.open();
    const replacement = await hub.module({ seed: 99 });
    const path = `/v1/projects/${hub.projectUid}/devices/${module.device}`;
    expect((await hub.api("PUT", `${path}/public-key`, { key: replacement.publicKeyPem })).status).toBe(200);
    const refused = await module.resume();
    expect(code(refused)).toBe("ticket");
    expect(refused.err).toContain("another key of the device");
  });
});

describe("session tickets without TLS (plain HTTP on loopback)", () => {
  let hub: SyncFixture;
  beforeAll(async () => {
    hub = await SyncFixture.start("http");
  });
  afterAll(async () => hub.close());

  it("gives no ticket, and takes none: a plain session proves the key every time", async () => {
    const module = await hub.module();
    const proven = await module.open();
    expect(proven.err).toBeUndefined();
    expect(proven).not.toHaveProperty("ticket");
    const tickets = new SessionTickets(TICKET_MS);
    const ticket = tickets.issue(
      module.device,
      module.product,
      module.publicKeyPem,
      hub.clock.now() + 60_000,
    )!;
    const refused = await module.resume({ ticket });
    expect(code(refused)).toBe("ticket");
    expect(refused.err).toContain("only over TLS");
  });
});
