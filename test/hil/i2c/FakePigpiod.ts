import { createServer, type Server, type Socket } from "node:net";

/**
 * A fake pigpio daemon: speaks the socket protocol (16-byte commands, extensions) and models the
 * BSC peripheral behind BSCX: 16-byte receive and transmit FIFOs, bytes past a full receive FIFO
 * lost, 0xff from an empty transmit FIFO, BREAK clearing both. A test plays the I2C controller
 * with `controllerWrite`/`controllerRead`.
 */
export class FakePigpiod {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  rx: number[] = [];
  tx: number[] = [];
  control = 0;
  overruns = 0;
  commands: { cmd: number; p1: number; ext: number[] }[] = [];

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(): Promise<FakePigpiod> {
    const holder: { fake?: FakePigpiod } = {};
    const server = createServer((socket) => holder.fake!.#serve(socket));
    const fake = (holder.fake = new FakePigpiod(server));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return fake;
  }

  get port(): number {
    return (this.#server.address() as { port: number }).port;
  }

  get address(): number {
    return (this.control >>> 16) & 0x7f;
  }

  /** The controller writes one transaction; false if the peripheral is off or the address differs. */
  controllerWrite(address: number, bytes: number[]): boolean {
    if ((this.control & 1) === 0 || address !== this.address) return false;
    for (const b of bytes) {
      if (this.rx.length >= 16) this.overruns++;
      else this.rx.push(b);
    }
    return true;
  }

  controllerRead(address: number, length: number): number[] | undefined {
    if ((this.control & 1) === 0 || address !== this.address) return undefined;
    const out: number[] = [];
    for (let i = 0; i < length; i++) out.push(this.tx.length > 0 ? this.tx.shift()! : 0xff);
    return out;
  }

  async stop(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #serve(socket: Socket): void {
    this.#sockets.add(socket);
    let buffer = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      while (buffer.length >= 16) {
        const p3 = buffer.readUInt32LE(12);
        if (buffer.length < 16 + p3) break;
        const cmd = buffer.readUInt32LE(0);
        const p1 = buffer.readUInt32LE(4);
        const ext = [...buffer.subarray(16, 16 + p3)];
        buffer = buffer.subarray(16 + p3);
        this.commands.push({ cmd, p1, ext });
        socket.write(this.#answer(cmd, p1, ext));
      }
    });
    socket.on("close", () => this.#sockets.delete(socket));
  }

  #answer(cmd: number, p1: number, ext: number[]): Buffer {
    const head = Buffer.alloc(16);
    head.writeUInt32LE(cmd, 0);
    head.writeUInt32LE(p1, 4);
    if (cmd !== 114) {
      head.writeInt32LE(-41, 12); // PI_BAD_...: only BSCX is modelled
      return head;
    }
    this.control = p1;
    if (p1 & 0x80) {
      this.rx = [];
      this.tx = [];
    }
    let copied = 0;
    for (const b of ext.slice(0, 16)) {
      if (this.tx.length >= 16) break;
      this.tx.push(b);
      copied++;
    }
    const received = this.rx.splice(0, this.rx.length);
    const status =
      (copied << 16) |
      (this.rx.length << 11) |
      (this.tx.length << 6) |
      (this.tx.length === 0 ? 0x10 : 0) |
      (this.rx.length === 0 ? 0x02 : 0);
    head.writeInt32LE(4 + received.length, 12);
    const body = Buffer.alloc(4 + received.length);
    body.writeUInt32LE(status >>> 0, 0);
    Buffer.from(received).copy(body, 4);
    return Buffer.concat([head, body]);
  }
}
