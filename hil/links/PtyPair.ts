import { spawn, type ChildProcess } from "node:child_process";
import { lstatSync, unlinkSync } from "node:fs";
import { PtyBridge } from "./PtyBridge.js";

/**
 * Two linked virtual serial devices (socat `pty,raw,echo=0` at both ends): a virtual rig cable.
 * Whatever opens one end talks to whatever opens the other, through real tty drivers, so a module
 * served with `--serial` on one end meets host programs on the other exactly as on hardware.
 * `unplug()` makes both devices disappear (like a USB adapter pulled); `plug()` brings them back.
 */
export class PtyPair {
  readonly a: string;
  readonly b: string;
  #child: ChildProcess | undefined;

  private constructor(a: string, b: string) {
    this.a = a;
    this.b = b;
  }

  static available(): boolean {
    return PtyBridge.available();
  }

  static async open(a: string, b: string): Promise<PtyPair> {
    const pair = new PtyPair(a, b);
    await pair.plug();
    return pair;
  }

  get plugged(): boolean {
    return this.#child !== undefined;
  }

  /** Creates the two devices (again). */
  async plug(): Promise<void> {
    if (this.#child) return;
    removeLink(this.a);
    removeLink(this.b);
    const child = spawn(
      "socat",
      ["-d", "-d", `pty,raw,echo=0,link=${this.a}`, `pty,raw,echo=0,link=${this.b}`],
      {
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    this.#child = child;
    await new Promise<void>((resolve, reject) => {
      let output = "";
      child.stderr!.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes("starting data transfer loop")) resolve();
      });
      child.once("error", reject);
      child.once("exit", (code) => reject(new Error(`socat exited (${code}): ${output.trim()}`)));
    });
  }

  /** Removes both devices: programs that had them open see them go away. */
  async unplug(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (!child) return;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      await exited;
    }
    removeLink(this.a);
    removeLink(this.b);
  }

  close(): Promise<void> {
    return this.unplug();
  }
}

function removeLink(path: string): void {
  try {
    if (lstatSync(path).isSymbolicLink()) unlinkSync(path);
  } catch {
    // Not there.
  }
}
