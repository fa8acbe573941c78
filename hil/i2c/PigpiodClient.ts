import { connect, type Socket } from "node:net";

/** pigpiod socket command numbers used here. */
export const PIGPIOD_CMD = { BSCX: 114, HWVER: 17, PIGPV: 26 } as const;

export interface PigpiodReply {
  readonly res: number;
  /** Extension bytes that follow the reply for commands that return data. */
  readonly ext: Uint8Array;
}

/** Commands whose successful reply carries `res` bytes of extension data. */
const EXTENDED = new Set<number>([PIGPIOD_CMD.BSCX]);

/**
 * A thin client of the pigpio daemon's socket protocol (default port 8888): each command is 16
 * bytes (`cmd`, `p1`, `p2`, `p3` as little-endian uint32) plus `p3` bytes of extension; each
 * reply is 16 bytes whose last word is the signed result, followed by extension data for commands
 * that return some. Commands are answered in order; this client keeps one in flight.
 */
export class PigpiodClient {
  readonly #socket: Socket;
  #buffer = new Uint8Array();
  #waiting: { cmd: number; resolve: (r: PigpiodReply) => void; reject: (e: Error) => void }[] = [];
  #chain: Promise<unknown> = Promise.resolve();
  #closed = false;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => this.#receive(chunk));
    socket.on("close", () => this.#fail(new Error("pigpiod closed the connection")));
    socket.on("error", (error) => this.#fail(error));
  }

  static connect(host = "127.0.0.1", port = 8888): Promise<PigpiodClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port });
      socket.once("connect", () => {
        socket.off("error", reject);
        resolve(new PigpiodClient(socket));
      });
      socket.once("error", (error) =>
        reject(
          new Error(
            `pigpiod is not answering at ${host}:${port} (${(error as NodeJS.ErrnoException).code ?? error.message}): start it (sudo systemctl enable --now pigpiod), or choose another I2C backend (--i2c rp2040:DEVICE or --i2c none)`,
          ),
        ),
      );
    });
  }

  /** Sends one command and resolves with its reply (errors are negative `res`, not rejections). */
  command(cmd: number, p1 = 0, p2 = 0, ext: Uint8Array = new Uint8Array()): Promise<PigpiodReply> {
    const run = this.#chain.then(
      () =>
        new Promise<PigpiodReply>((resolve, reject) => {
          if (this.#closed) return reject(new Error("pigpiod connection is closed"));
          const frame = Buffer.alloc(16 + ext.length);
          frame.writeUInt32LE(cmd, 0);
          frame.writeUInt32LE(p1 >>> 0, 4);
          frame.writeUInt32LE(p2 >>> 0, 8);
          frame.writeUInt32LE(ext.length, 12);
          frame.set(ext, 16);
          this.#waiting.push({ cmd, resolve, reject });
          this.#socket.write(frame);
        }),
    );
    this.#chain = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#chain;
    this.#closed = true;
    await new Promise<void>((resolve) => this.#socket.end(resolve));
    this.#socket.destroy();
  }

  #receive(chunk: Buffer): void {
    const all = new Uint8Array(this.#buffer.length + chunk.length);
    all.set(this.#buffer);
    all.set(chunk, this.#buffer.length);
    this.#buffer = all;
    for (;;) {
      const next = this.#waiting[0];
      if (!next || this.#buffer.length < 16) return;
      const view = new DataView(this.#buffer.buffer, this.#buffer.byteOffset, this.#buffer.length);
      const res = view.getInt32(12, true);
      const extLength = EXTENDED.has(next.cmd) && res > 0 ? res : 0;
      if (this.#buffer.length < 16 + extLength) return;
      const ext = this.#buffer.slice(16, 16 + extLength);
      this.#buffer = this.#buffer.slice(16 + extLength);
      this.#waiting.shift();
      next.resolve({ res, ext });
    }
  }

  #fail(error: Error): void {
    this.#closed = true;
    for (const w of this.#waiting.splice(0)) w.reject(error);
  }
}
