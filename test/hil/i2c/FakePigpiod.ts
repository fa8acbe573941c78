import { createServer, type Server, type Socket } from "node:net";
import { Changes } from "../../support/waiting.js";

/**
 * A fake pigpio daemon: speaks the socket protocol (16-byte commands, extensions) and models the
 * BSC peripheral behind BSCX: 16-byte receive and transmit FIFOs, bytes past a full receive FIFO
 * lost, 0xff from an empty transmit FIFO, BREAK clearing both. A test plays the I2C controller
 * with `controllerWrite`/`controllerRead` (or `controllerSend`/`controllerQuery`, which pace
 * themselves like a host) and waits on `until`, checked again at each command the daemon answers.
 */
export class FakePigpiod {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  rx: number[] = [];
  tx: number[] = [];
  control = 0;
  overruns = 0;
  commands: { cmd: number; p1: number; ext: number[] }[] = [];
  /** Fired after each command answered (the backend polls the peripheral with BSCX commands). */
  readonly #answered = new Changes();

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

  /** Resolves once `check()` holds, checked now and after each command the daemon answers. */
  until(check: () => boolean | Promise<boolean>, what: string, ms?: number): Promise<void> {
    return this.#answered.until(check, what, ms);
  }

  /** A host with MTU 14 (what fits the BSC FIFOs): writes `bytes` in chunks as the FIFO drains. */
  async controllerSend(address: number, bytes: Uint8Array): Promise<void> {
    for (let at = 0; at < bytes.length; at += 14) {
      const chunk = [...bytes.subarray(at, at + 14)];
      if (!this.controllerWrite(address, [chunk.length, ...chunk])) {
        throw new Error(`no BSC target at 0x${address.toString(16)}`);
      }
      await this.until(() => this.rx.length === 0, "the backend to drain the receive FIFO");
    }
  }

  /**
   * Asks the target for `want` bytes ([0, want]) and reads its answer once it is staged in the
   * transmit FIFO (note-arduino waits 2 ms instead): what is left, how many came, the bytes.
   */
  async controllerQuery(
    address: number,
    want: number,
  ): Promise<{ available: number; count: number; data: number[] }> {
    this.controllerWrite(address, [0, want]);
    await this.until(() => this.tx.length === Math.min(16, want + 2), "the answer in the transmit FIFO");
    const bytes = this.controllerRead(address, want + 2)!;
    return { available: bytes[0]!, count: bytes[1]!, data: bytes.slice(2) };
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
        this.#answered.fire();
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
