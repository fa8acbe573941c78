import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, lstatSync, readlinkSync, unlinkSync } from "node:fs";

/**
 * A virtual serial device for host programs: socat creates a pty, links it at `path`, and
 * connects its other end to the module's TCP port. Any program that opens a serial device
 * (pyserial, termios, note-c on Linux) can open `path`. socat is kept running; if it dies it is
 * restarted, and the link is removed when the bridge closes.
 *
 * Node has no pty API without native code, hence socat (Debian package `socat`).
 */
export class PtyBridge {
  readonly path: string;
  readonly #target: { host: string; port: number };
  #child: ChildProcess | undefined;
  #closing = false;
  #restarts = 0;

  private constructor(path: string, target: { host: string; port: number }) {
    this.path = path;
    this.#target = target;
  }

  /** True when socat can be run. */
  static available(): boolean {
    return spawnSync("socat", ["-V"], { stdio: "ignore" }).status === 0;
  }

  /** Creates the device at `path` and resolves once a host can open it. */
  static async open(path: string, target: { host: string; port: number }): Promise<PtyBridge> {
    if (!PtyBridge.available()) {
      throw new Error(
        "--pty needs socat to create the virtual serial device: install it (apt-get install socat)",
      );
    }
    if (inUse(path)) {
      throw new Error(
        `${path} is in use: another cardsim (or socat) serves a device there; stop it, or choose another --pty PATH`,
      );
    }
    removeStaleLink(path);
    const bridge = new PtyBridge(path, target);
    await bridge.#start();
    return bridge;
  }

  /** How many times socat had to be restarted. */
  get restarts(): number {
    return this.#restarts;
  }

  #start(): Promise<void> {
    const { host, port } = this.#target;
    const child = spawn("socat", ["-d", "-d", `pty,raw,echo=0,link=${this.path}`, `tcp:${host}:${port}`], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    this.#child = child;
    return new Promise((resolve, reject) => {
      let output = "";
      let ready = false;
      child.stderr!.on("data", (chunk: Buffer) => {
        if (ready) return;
        output += chunk.toString();
        // socat reports the transfer loop once both the pty and the TCP connection are up.
        if (output.includes("starting data transfer loop")) {
          ready = true;
          resolve();
        }
      });
      child.once("error", reject);
      child.once("exit", (code) => {
        if (!ready) {
          reject(new Error(`socat exited (${code}) before the pty was ready: ${output.trim()}`));
          return;
        }
        if (this.#closing) return;
        this.#restarts++;
        setTimeout(() => void this.#start().catch(() => undefined), 100).unref();
      });
    });
  }

  async close(): Promise<void> {
    this.#closing = true;
    const child = this.#child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      await exited;
    }
    removeStaleLink(this.path);
  }
}

/**
 * True when `path` is something other than a stale link: a link to a pty that still exists (its
 * owner is running), or a file or device that is not a link at all.
 */
function inUse(path: string): boolean {
  try {
    if (!lstatSync(path).isSymbolicLink()) return true;
  } catch {
    return false;
  }
  const target = readlinkSync(path);
  return target.startsWith("/dev/pts/") && existsSync(target);
}

function removeStaleLink(path: string): void {
  try {
    if (lstatSync(path).isSymbolicLink()) unlinkSync(path);
  } catch {
    // Not there: nothing to remove.
  }
}
