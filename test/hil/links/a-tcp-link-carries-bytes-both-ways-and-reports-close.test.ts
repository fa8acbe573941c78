import { connect, createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { TcpLink } from "../../../hil/links/TcpLink.js";

/** Resolves once `count` bytes have arrived on `link`, with every byte received so far. */
function received(link: TcpLink, count: number): Promise<number[]> {
  const bytes: number[] = [];
  return new Promise((resolve) => {
    link.onData((chunk) => {
      bytes.push(...chunk);
      if (bytes.length >= count) resolve(bytes);
    });
  });
}

/** Resolves when `link` reports its close, with a counter of how often it did. */
function closes(link: TcpLink): { once: Promise<void>; count: () => number } {
  let count = 0;
  const once = new Promise<void>((resolve) =>
    link.onClose(() => {
      count++;
      resolve();
    }),
  );
  return { once, count: () => count };
}

describe("TcpLink", () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  async function pair(): Promise<[TcpLink, TcpLink, Socket, Socket]> {
    const accepted = new Promise<Socket>((resolve) => {
      server = createServer(resolve);
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const port = (server!.address() as { port: number }).port;
    const client = connect(port, "127.0.0.1");
    await new Promise((resolve) => client.once("connect", resolve));
    const peer = await accepted;
    return [new TcpLink(client), new TcpLink(peer), client, peer];
  }

  it("carries binary bytes both ways unchanged", async () => {
    const [a, b] = await pair();
    const atA = received(a, 256);
    const atB = received(b, 256);
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    a.write(all);
    b.write(all.slice().reverse());
    expect(await atB).toEqual([...all]);
    expect(await atA).toEqual([...all].reverse());
    await a.close();
    await b.close();
  });

  it("reports close to the other end once, and writes after close send nothing and do not throw", async () => {
    const [a, b, socketA, socketB] = await pair();
    const atA: number[] = [];
    a.onData((x) => atA.push(...x));
    const closedB = closes(b);
    await a.close();
    await closedB.once;
    expect(socketA.destroyed).toBe(true);
    expect(() => a.write(Uint8Array.of(1))).not.toThrow();
    expect(socketA.bytesWritten).toBe(0);
    expect(() => b.write(Uint8Array.of(1))).not.toThrow();
    await b.close();
    expect(socketB.destroyed).toBe(true);
    expect(atA).toEqual([]);
    expect(closedB.count()).toBe(1);
  });

  it("survives a peer that vanishes mid-write: the error becomes one close, and later writes are dropped", async () => {
    const [a, b, socketA] = await pair();
    const closedA = closes(a);
    await b.close();
    for (let i = 0; i < 50; i++) a.write(new Uint8Array(65536));
    await closedA.once;
    expect(socketA.destroyed).toBe(true);
    const written = socketA.bytesWritten;
    expect(() => a.write(new Uint8Array(65536))).not.toThrow();
    expect(socketA.bytesWritten).toBe(written);
    await a.close();
    expect(closedA.count()).toBe(1);
  });
});
