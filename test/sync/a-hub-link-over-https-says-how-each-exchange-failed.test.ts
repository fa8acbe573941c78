import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { HubLinkError } from "../../firmware/radio/HubLink.js";
import { CertificateAuthority } from "../../hub/tls/CertificateAuthority.js";
import { HttpsHubLink } from "../../runtime/HttpsHubLink.js";

/**
 * The HTTPS link's outcomes, against a TLS server of a test CA: a reply is the hub's JSON; a
 * connection that cannot be made (refused, or a certificate the link cannot trust) is
 * `unreachable`; one that breaks after the request was written is `dropped`, and sent again once
 * only when it was a kept-alive connection reused; an answer other than 200 or JSON, or cut off,
 * is `dropped`; no answer within the timeout (plus the time the hub holds the message) is
 * `timeout`.
 */
describe("a hub link over HTTPS", () => {
  let tls: { ca: string; cert: string; key: string };
  let server: Server | undefined;
  const links: HttpsHubLink[] = [];

  beforeAll(async () => {
    const now = Date.now(); // the certificates must be current for the TLS handshake
    const ca = await CertificateAuthority.create(now, "link test CA");
    tls = { ca: ca.pem.cert, ...(await ca.issueServerCertificate(["127.0.0.1"], now)) };
  });

  afterEach(async () => {
    for (const link of links.splice(0)) link.close();
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    server = undefined;
  });

  /** A TLS server answering each request with `answer`; the requests it was given, counted. */
  async function hub(answer: (req: IncomingMessage, res: ServerResponse, nth: number) => void) {
    const seen = { requests: 0, connections: 0 };
    const perSocket = new WeakMap<object, number>();
    server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
      seen.requests++;
      const nth = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, nth);
      req.resume();
      req.on("end", () => answer(req, res, nth));
    });
    server.on("secureConnection", () => seen.connections++);
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    return { seen, url: `https://127.0.0.1:${(server.address() as AddressInfo).port}` };
  }

  const json = (res: ServerResponse, body: unknown) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(body));
  };

  function link(url: string, options: { ca?: string; timeoutMs?: number } = { ca: tls.ca }) {
    const made = new HttpsHubLink({ url, ...options });
    links.push(made);
    return made;
  }

  async function failure(exchange: Promise<unknown>): Promise<HubLinkError> {
    const error = await exchange.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(HubLinkError);
    return error as HubLinkError;
  }

  const message = { v: 1, type: "signals", token: "t", after: 0 };

  it("exchanges JSON with a hub whose CA it is given as PEM or as a file, counting the bytes", async () => {
    const { url, seen } = await hub((_req, res) => json(res, { v: 1, ok: "é" }));
    const exchanged = await link(url).exchange(message);
    expect(exchanged).toEqual({
      reply: { v: 1, ok: "é" },
      sent: Buffer.byteLength(JSON.stringify(message)),
      received: Buffer.byteLength(JSON.stringify({ v: 1, ok: "é" })),
    });
    const dir = await mkdtemp(join(tmpdir(), "cardsim-link-ca-"));
    try {
      await writeFile(join(dir, "ca.pem"), tls.ca);
      expect((await link(url, { ca: join(dir, "ca.pem") }).exchange(message)).reply).toEqual({
        v: 1,
        ok: "é",
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(seen.requests).toBe(2);
  });

  it("finds a hub whose certificate it cannot trust, or that refuses the connection, unreachable", async () => {
    const { url, seen } = await hub((_req, res) => json(res, { v: 1 }));
    const untrusted = await failure(link(url, {}).exchange(message));
    expect(untrusted.failure).toBe("unreachable");
    expect(seen.requests).toBe(0);
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
    const refused = await failure(link(url).exchange(message));
    expect(refused.failure).toBe("unreachable");
    expect(refused.message).toBe(`${url}: ECONNREFUSED`);
  });

  it("sends a message once more when a kept-alive connection it reused was closed unanswered", async () => {
    // The hub drops the second request of every connection, as a hub whose keep-alive timeout
    // closes a connection just as a request arrives on it.
    const { url, seen } = await hub((req, res, nth) =>
      nth === 2 ? req.socket.destroy() : json(res, { v: 1 }),
    );
    const one = link(url);
    expect((await one.exchange(message)).reply).toEqual({ v: 1 });
    expect((await one.exchange(message)).reply).toEqual({ v: 1 });
    expect(seen).toEqual({ requests: 3, connections: 2 });
  });

  it("finds a new connection broken after the request was written dropped, and does not resend", async () => {
    const { url, seen } = await hub((req) => req.socket.destroy());
    const dropped = await failure(link(url).exchange(message));
    expect(dropped.failure).toBe("dropped");
    expect(dropped.message).toBe(`${url}: ECONNRESET`);
    expect(seen.requests).toBe(1);
  });

  it("finds an answer other than 200, not JSON or cut off dropped, saying which", async () => {
    const answers = [
      (res: ServerResponse) => res.writeHead(503).end("busy"),
      (res: ServerResponse) => res.writeHead(200).end("{oops"),
      (res: ServerResponse) => {
        res.writeHead(200, { "content-length": "100" });
        res.write('{"v":1,');
        setImmediate(() => res.socket?.destroy());
      },
    ];
    const { url } = await hub((_req, res) => answers.shift()!(res));
    const hubLink = link(url);
    const messages: string[] = [];
    for (let i = 0; i < 3; i++) {
      const dropped = await failure(hubLink.exchange(message));
      expect(dropped.failure).toBe("dropped");
      messages.push(dropped.message);
    }
    expect(messages).toEqual([
      "the hub answered HTTP 503: busy",
      "the hub's reply is not JSON",
      "the hub's reply was cut off",
    ]);
  });

  it("times out when no answer comes within its timeout plus the time the hub holds the message", async () => {
    const { url } = await hub(() => undefined);
    const hubLink = link(url, { ca: tls.ca, timeoutMs: 20 });
    const late = await failure(hubLink.exchange(message));
    expect(late.failure).toBe("timeout");
    expect(late.message).toBe(`no reply from ${url} in 20 ms`);
    const held = await failure(hubLink.exchange({ ...message, wait: 15 }));
    expect(held.failure).toBe("timeout");
    expect(held.message).toBe(`no reply from ${url} in 35 ms`);
  });
});
