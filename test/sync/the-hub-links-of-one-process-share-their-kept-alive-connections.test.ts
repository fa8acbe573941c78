import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { HttpsHubLink } from "../../runtime/HttpsHubLink.js";

/**
 * The modules of one process (a fleet) share one agent per scheme and CA: their messages ride on
 * the same kept-alive connections instead of each module opening its own, and the last link to
 * close ends them. Shown on plain HTTP on loopback (the same agent code as HTTPS), against a
 * server that counts the connections it is given.
 */
describe("hub links of one process", () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  });

  async function countingServer() {
    const seen = { opened: 0, closed: 0, firstClosed: undefined as Promise<void> | undefined };
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ v: 1 }));
      });
    });
    server.on("connection", (socket) => {
      seen.opened++;
      const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
      seen.firstClosed ??= closed.then(() => undefined);
      socket.on("close", () => seen.closed++);
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { seen, url };
  }

  const message = { v: 1, type: "signals", token: "t", after: 0 };

  it("send the messages of many modules, one after another, over one connection", async () => {
    const { seen, url } = await countingServer();
    const links = Array.from({ length: 5 }, () => new HttpsHubLink({ url }));
    for (const link of links) expect((await link.exchange(message)).reply).toEqual({ v: 1 });
    for (const link of links) expect((await link.exchange(message)).reply).toEqual({ v: 1 });
    expect(seen.opened).toBe(1);
    // A link that closes leaves the others' connections alone; the last one ends them.
    for (const link of links.slice(1)) link.close();
    expect((await links[0]!.exchange(message)).reply).toEqual({ v: 1 });
    expect(seen.opened).toBe(1);
    links[0]!.close();
    await seen.firstClosed;
    expect(seen.closed).toBe(1);
  });

  it("open a connection for each message sent at once, then send on those connections", async () => {
    const { seen, url } = await countingServer();
    const links = Array.from({ length: 3 }, () => new HttpsHubLink({ url }));
    const replies = await Promise.all(links.map((link) => link.exchange(message)));
    expect(replies.map((r) => r.reply)).toEqual([{ v: 1 }, { v: 1 }, { v: 1 }]);
    expect(seen.opened).toBe(3);
    for (let round = 0; round < 2; round++) {
      for (const link of links) expect((await link.exchange(message)).reply).toEqual({ v: 1 });
      await Promise.all(links.map((link) => link.exchange(message)));
    }
    expect(seen.opened).toBe(3);
    for (const link of links) link.close();
  });

  it("send a message again on a new connection when the hub had closed the idle one it reused", async () => {
    const { seen, url } = await countingServer();
    // The hub drops the second request of every connection unanswered, as a hub does whose
    // keep-alive timeout closes a connection just as a request arrives on it.
    const requests = new WeakMap<object, number>();
    server!.prependListener("request", (req) => {
      const n = (requests.get(req.socket) ?? 0) + 1;
      requests.set(req.socket, n);
      if (n === 2) req.socket.destroy();
    });
    const a = new HttpsHubLink({ url });
    const b = new HttpsHubLink({ url });
    expect((await a.exchange(message)).reply).toEqual({ v: 1 });
    expect((await b.exchange(message)).reply).toEqual({ v: 1 });
    expect(seen.opened).toBe(2);
    a.close();
    b.close();
  });
});
