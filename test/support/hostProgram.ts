import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";

/** Runs a host program (python, a compiled C program) to completion, or fails after `timeoutMs`. */
export function runProgram(
  command: string,
  args: string[],
  timeoutMs: number,
  options: { cwd?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("error", reject);
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${command} ${args.join(" ")} did not finish:\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * The fenced code block that follows `<!-- tested: NAME -->` in a Markdown page: the page's
 * example as the reader copies it, so that a test runs exactly what the page shows.
 */
export function testedCodeBlock(page: string, name: string): string {
  const text = readFileSync(page, "utf8");
  const marker = `<!-- tested: ${name} -->`;
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`${page} has no ${marker}`);
  const block = /```[\w-]*\n([\s\S]*?)```/.exec(text.slice(at + marker.length));
  if (!block) throw new Error(`${page}: no code block after ${marker}`);
  return block[1]!;
}
