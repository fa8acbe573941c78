import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cobsDecode } from "../../../firmware/host/Cobs.js";
import { I2cTarget } from "../../../firmware/host/I2cTarget.js";
import { Rp2040BridgeBackend } from "../../../hil/i2c/Rp2040BridgeBackend.js";
import { bootTestModule } from "../../support/moduleFixture.js";

/**
 * The bridge firmware's protocol core (hil/bridge/rp2040/bridge_core.c), compiled for the host
 * and running on one end of a pty pair, plays the Pico; cardsim's Node adapter opens the other
 * end exactly as it would open /dev/ttyACM0. The test scripts the I2C controller through the
 * host build's stdin.
 */
const has = (tool: string) => {
  try {
    execFileSync("sh", ["-c", `command -v ${tool}`]);
    return true;
  } catch {
    return false;
  }
};
const missing = ["cc", "socat"].filter((t) => !has(t));
const dir = mkdtempSync(join(tmpdir(), "cardsim-rp2040-"));
const hostBinary = join(dir, "bridge_host");

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

beforeAll(() => {
  if (missing.length > 0) return;
  const src = fileURLToPath(new URL("../../../hil/bridge/rp2040", import.meta.url));
  execFileSync("cc", [
    "-std=c11",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-o",
    hostBinary,
    join(src, "bridge_host.c"),
    join(src, "bridge_core.c"),
  ]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let pairs = 0;
async function ptyPair(name: string): Promise<[string, string]> {
  // Fresh names: a killed socat removes its links only as it exits.
  const a = join(dir, `${name}-${++pairs}-a`);
  const b = join(dir, `${name}-${pairs}-b`);
  const socat = spawn("socat", [`pty,raw,echo=0,link=${a}`, `pty,raw,echo=0,link=${b}`]);
  cleanups.push(() => void socat.kill());
  for (let i = 0; i < 300 && !(existsSync(a) && existsSync(b)); i++)
    await new Promise((r) => setTimeout(r, 10));
  if (!existsSync(a) || !existsSync(b)) throw new Error("socat did not create the pty pair");
  return [a, b];
}

/** The bridge core on a pty, with a line-based controller script. */
function bridgeHost(tty: string) {
  const child: ChildProcessWithoutNullStreams = spawn(hostBinary, [tty]);
  cleanups.push(() => void child.kill());
  const lines: string[] = [];
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const waiters: (() => void)[] = [];
  createInterface({ input: child.stdout }).on("line", (l) => {
    lines.push(l);
    waiters.splice(0).forEach((w) => w());
  });
  const next = async (prefix: string): Promise<string> => {
    for (;;) {
      const at = lines.findIndex((l) => l.startsWith(prefix));
      if (at >= 0) return lines.splice(at, 1)[0]!;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(new Error(`bridge host said no "${prefix}" (got ${lines.join(" | ")}; stderr ${stderr})`)),
          5000,
        );
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  };
  const hex = (bytes: number[]) => bytes.map((b) => b.toString(16).padStart(2, "0")).join(" ");
  return {
    next,
    write: async (bytes: number[]) => {
      child.stdin.write(`w ${hex(bytes)}\n`);
      await next("ok");
    },
    read: async (count: number) => {
      child.stdin.write(`r ${count}\n`);
      const data = (await next("data"))
        .split(" ")
        .slice(1)
        .map((h) => parseInt(h, 16));
      const stretched = Number((await next("stretched")).split(" ")[1]);
      return { data, stretched };
    },
  };
}

describe.skipIf(missing.length > 0)(
  `RP2040 bridge over a pty${missing.length ? ` (skipped: install ${missing.join(", ")})` : ""}`,
  () => {
    async function rig(address = 0x17) {
      const [ours, theirs] = await ptyPair(`rig${address}`);
      const bridge = bridgeHost(theirs);
      await bridge.next("ready");
      const t = await bootTestModule();
      const target = new I2cTarget(t.module, { address });
      const backend = new Rp2040BridgeBackend({ path: ours });
      await backend.attach(target);
      cleanups.push(() => backend.close());
      const enc = new TextEncoder();
      const send = async (text: string, mtu = 30) => {
        const bytes = [...enc.encode(text)];
        for (let at = 0; at < bytes.length; at += mtu) {
          const chunk = bytes.slice(at, at + mtu);
          await bridge.write([chunk.length, ...chunk]);
        }
      };
      /** note-c's receive loop at MTU 30: query + read of 32 bytes, with no pause at all. */
      const receive = async () => {
        const out: number[] = [];
        let available = 0;
        for (let i = 0; i < 500 && available === 0; i++) {
          await bridge.write([0, 0]);
          available = (await bridge.read(2)).data[0]!;
        }
        while (available > 0) {
          const want = Math.min(available, 30);
          await bridge.write([0, want]);
          const { data } = await bridge.read(want + 2);
          expect(data[1]).toBe(want);
          out.push(...data.slice(2));
          available = data[0]!;
        }
        return Uint8Array.from(out);
      };
      return { bridge, backend, target, t, send, receive };
    }

    it("sets the target address at attach", async () => {
      const r = await rig(0x17);
      expect(await r.bridge.next("address")).toBe("address 17");
    });

    it("carries requests with note-c's default MTU, the clock stretched instead of pauses", async () => {
      const r = await rig();
      await r.send('{"req":"echo","text":"through the pico bridge, 30 bytes at a time"}\n');
      const reply = new TextDecoder().decode(await r.receive());
      expect(reply).toBe('{"text":"through the pico bridge, 30 bytes at a time"}\r\n');
      expect(r.backend.stats.stretched).toBeGreaterThan(0);
      expect(r.backend.stats.underruns).toBe(0);
    });

    it("serves the binary data of card.binary.get only after the JSON reply", async () => {
      const r = await rig();
      const data = Uint8Array.from({ length: 100 }, (_, i) => i);
      r.t.module.binary.fill(data);
      await r.send('{"req":"card.binary.get"}\n');
      const json = new TextDecoder().decode(await r.receive());
      expect(json).toMatch(/^\{"status":"[0-9a-f]{32}"\}\r\n$/);
      const packet = await r.receive();
      expect(cobsDecode(packet.subarray(0, -1))).toEqual(data);
    });

    it("gives filler for a read that has no answer (no query before it)", async () => {
      const r = await rig();
      const { data } = await r.bridge.read(4);
      expect(data).toEqual([0xff, 0xff, 0xff, 0xff]);
    });

    it("fails clearly when no bridge answers", async () => {
      const [ours] = await ptyPair("silent");
      const t = await bootTestModule();
      const backend = new Rp2040BridgeBackend({ path: ours, helloTimeoutMs: 200 });
      cleanups.push(() => backend.close());
      await expect(backend.attach(new I2cTarget(t.module))).rejects.toThrow(
        /no answer from the RP2040 bridge/,
      );
    });
  },
);
