import type { Command } from "commander";
import { CliError } from "./CliError.js";
import { parseInteger } from "./options.js";

interface CompareOptions {
  port?: string;
  script?: string;
  transcript?: string;
  record?: string;
  rules?: string;
  sku?: string;
  timeout: number;
  json?: boolean;
}

/** The one-line answer to flags that do not make a comparison, or undefined when they do. */
export function compareUsageProblem(options: CompareOptions): string | undefined {
  if (options.port && options.transcript)
    return "--port and --transcript cannot be used together: compare against the module on the port, or against a recorded transcript";
  if (!options.port && !options.transcript)
    return "say where the real replies come from: --port DEV --script FILE (a real module), or --transcript FILE (a recording)";
  if (options.port && !options.script)
    return "--port needs --script FILE: the requests to send, one JSON request a line (tools/compare/starter.jsonl is a start)";
  if (options.transcript && options.script)
    return "--transcript replays the requests it holds: drop --script";
  if (options.record && !options.port)
    return "--record keeps a real module's transcript: it needs --port DEV";
  return undefined;
}

export function registerCompareCommand(program: Command): void {
  program
    .command("compare")
    .description(
      "send the same requests to a real module and to a simulated one of its SKU and print where the replies differ (exit status 1 if they do)",
    )
    .option("--port <DEV[@BAUD]>", "the real module's serial device, e.g. /dev/ttyACM0")
    .option("--script <FILE>", "the requests to send, one JSON request a line")
    .option("--record <FILE>", "keep the real module's replies in this transcript file")
    .option("--transcript <FILE>", "compare against a recorded transcript instead of a module")
    .option("--rules <FILE>", 'more values to mask or ignore, {"mask":[…],"ignore":[…]} (docs/compare.md)')
    .option("--sku <SKU>", "simulate this SKU instead of the one the real module reports")
    .option("--timeout <MS>", "how long to wait for each reply of the real module", parseInteger, 30_000)
    .option("--json", "print the differences as one JSON object")
    .action(async (options: CompareOptions) => {
      const problem = compareUsageProblem(options);
      if (problem) throw new CliError(problem);
      const { runCompare } = await import("./compare/command.js");
      process.exitCode = await runCompare(options, (text) => process.stdout.write(text));
    });
}
