import { connect, createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { TcpLink } from "../../../hil/links/TcpLink.js";

function until(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const poll = () =>
      check() ? resolve() : Date.now() > deadline ? reject(new Error("timed out")) : setTimeout(poll, 5);
    poll();
  });
}

describe("TcpLink", () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  async function pair(): Promise<[TcpLink, TcpLink]> {
    const accepted = new Promise<Socket>((resolve) => {
      server = createServer(resolve);
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const port = (server!.address() as { port: number }).port;
    const client = connect(port, "127.0.0.1");
    await new Promise((resolve) => client.once("connect", resolve));
    return [new TcpLink(client), new TcpLink(await accepted)];
  }

  it("carries binary bytes both ways unchanged", async () => {
    const [a, b] = await pair();
    const atA: number[] = [];
    const atB: number[] = [];
    a.onData((x) => atA.push(...x));
    b.onData((x) => atB.push(...x));
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    a.write(all);
    b.write(all.slice().reverse());
    await until(() => atA.length === 256 && atB.length === 256);
    expect(atB).toEqual([...all]);
    expect(atA).toEqual([...all].reverse());
    await a.close();
    await b.close();
  });

  it("reports close to the other end, and writes after close are ignored", async () => {
    const [a, b] = await pair();
    let closed = false;
    b.onClose(() => (closed = true));
    await a.close();
    await until(() => closed);
    a.write(Uint8Array.of(1));
    b.write(Uint8Array.of(1));
    await b.close();
  });

  it("survives a peer that vanishes mid-write", async () => {
    const [a, b] = await pair();
    let closed = false;
    a.onClose(() => (closed = true));
    await b.close();
    for (let i = 0; i < 50; i++) a.write(new Uint8Array(65536));
    await until(() => closed);
  });
});
