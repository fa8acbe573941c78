import { InvalidArgumentError, type Command } from "commander";
import { readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { FlashInspection } from "../firmware/storage/flash/inspectFlash.js";

/** The flash options a module command takes. */
export interface FlashOptions {
  readonly dir: string;
  /** A directory; false with `--no-flash`; undefined for the default under `--dir`. */
  readonly flash?: string | false;
  readonly flashCapacity?: number;
}

/** Parses a byte count: `65536`, `64K`, `64KiB`, `4M`, `4MiB` (K and M are powers of 1024). */
export function parseByteSize(value: string): number {
  const match = /^(\d+)\s*(k|kib|m|mib|g|gib)?$/i.exec(value.trim());
  const unit = match?.[2]?.[0]?.toLowerCase();
  const scale = unit === "k" ? 1024 : unit === "m" ? 1024 ** 2 : unit === "g" ? 1024 ** 3 : 1;
  const bytes = match ? Number(match[1]) * scale : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 4096) {
    throw new InvalidArgumentError(
      `expected a size of at least 4096 bytes (like 65536, 512K, 4M), got "${value}"`,
    );
  }
  return bytes;
}

export function addFlashOptions(command: Command): Command {
  return command
    .option("--flash <DIR>", "keep the module's flash (notes, settings, identity) in DIR (default: D/flash)")
    .option("--no-flash", "keep the module's state in memory only: it is lost when the module stops")
    .option(
      "--flash-capacity <BYTES>",
      "size of the module's flash, like 4M (default: as stored, else 4 MiB)",
      parseByteSize,
    );
}

/** Where a module command keeps its flash, or undefined for memory only. */
export function flashDirectory(options: FlashOptions): string | undefined {
  if (options.flash === false) return undefined;
  return resolve(options.flash ?? join(options.dir, "flash"));
}

export function registerFlashCommand(program: Command): void {
  const flash = program.command("flash").description("look into a module's flash directory");
  flash
    .command("inspect")
    .description(
      "list the datafiles, notes, trackers, settings and space used of a module's flash (read-only)",
    )
    .argument("<DIR>", "the flash directory (a module's --flash, by default D/flash)")
    .option("--notes", "list every note with its body")
    .option("--json", "print everything as one JSON document")
    .action(async (dir: string, options: { notes?: boolean; json?: boolean }) => {
      // A missing or foreign directory is a SimError: the user's to fix, said in one line.
      const info = await inspectDirectory(dir);
      process.stdout.write(
        options.json ? JSON.stringify(info, null, 2) + "\n" : formatInspection(dir, info, options),
      );
      if (info.fatal) process.exitCode = 1;
    });
}

async function inspectDirectory(dir: string): Promise<FlashInspection & { lockedBy?: number }> {
  const [{ noFlashDirectory, notAFlash }, { inspectFlash }, { NodeFlashFs }] = await Promise.all([
    import("../firmware/errors.js"),
    import("../firmware/storage/flash/inspectFlash.js"),
    import("../hil/storage/NodeFlashFs.js"),
  ]);
  const found = await stat(dir).catch(() => undefined);
  if (!found?.isDirectory()) throw noFlashDirectory(dir);
  const info = await inspectFlash(new NodeFlashFs(dir));
  if (info.formatVersion === undefined && info.generation === undefined && !info.fatal) {
    if (!info.files.some((f) => f.name.startsWith("journal.") || f.name === "flash.json"))
      throw notAFlash(dir);
  }
  const owner = Number.parseInt(await readFile(join(dir, "LOCK"), "utf8").catch(() => ""), 10);
  return Number.isSafeInteger(owner) ? { ...info, lockedBy: owner } : info;
}

function formatInspection(
  dir: string,
  info: FlashInspection & { lockedBy?: number },
  options: { notes?: boolean },
): string {
  const out: string[] = [];
  const pct = (n: number) => `${((100 * n) / info.capacity).toFixed(1)}%`;
  out.push(`flash ${resolve(dir)}`);
  if (info.fatal) {
    out.push(`  a module would refuse this flash: ${info.fatal}`);
    return out.join("\n") + "\n";
  }
  out.push(
    `  format ${info.formatVersion ?? "?"}, generation ${info.generation ?? "-"}, ` +
      `capacity ${info.capacity} bytes, used ${info.used} bytes (${pct(info.used)})`,
  );
  out.push(
    `  live ${info.liveBytes} bytes in ${info.records} records, ` +
      `${Math.max(0, info.used - info.liveBytes)} bytes of journal overhead and garbage until the next compaction`,
  );
  if (info.lockedBy !== undefined)
    out.push(`  LOCK names process ${info.lockedBy} (a module may be running on it)`);
  out.push("files");
  for (const f of info.files) out.push(`  ${f.name.padEnd(24)} ${String(f.size ?? "?").padStart(10)}`);
  out.push("notefiles");
  if (info.notefiles.length === 0) out.push("  (none)");
  for (const f of info.notefiles) {
    const deleted = f.tombstones ? `, ${f.tombstones} deleted` : "";
    const notes = `${String(f.notes).padStart(6)} note${f.notes === 1 ? "" : "s"}`;
    out.push(`  ${f.name.padEnd(24)} ${notes}${deleted}, ${f.bytes} bytes`);
    if (options.notes) {
      for (const n of f.list) {
        const parts = [`change ${n.change}`, `time ${n.time}`];
        if (n.updates) parts.push(`updates ${n.updates}`);
        if (n.template !== undefined) parts.push(`template ${n.template}`);
        if (n.payloadBytes) parts.push(`payload ${n.payloadBytes} bytes`);
        if (n.deleted) parts.push("deleted");
        const body = n.body !== undefined ? ` ${JSON.stringify(n.body)}` : "";
        out.push(`    ${n.id}: ${parts.join(", ")}${body}`);
      }
    }
  }
  const trackers = Object.entries(info.trackers);
  if (trackers.length > 0) {
    out.push("trackers");
    for (const [name, positions] of trackers) {
      const at = Object.entries(positions).map(([file, change]) => `${file}@${change}`);
      out.push(`  ${name}: ${at.length > 0 ? at.join(", ") : "(no positions)"}`);
    }
  }
  const config = Object.entries(info.config);
  if (config.length > 0) {
    out.push("settings");
    for (const [key, value] of config) out.push(`  ${key} ${JSON.stringify(value)}`);
  }
  if (info.problems.length > 0) {
    out.push("to repair at the next boot");
    for (const p of info.problems) out.push(`  ${p}`);
  }
  return out.join("\n") + "\n";
}
