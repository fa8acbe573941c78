import { exchangeLines, jsonReport, summaryLine, differs } from "./report.js";
import { loadRules, RuleSet } from "./rules.js";
import { compareStep, SerialModule, SimulatedEnd, skuOf, type Exchange } from "./run.js";
import {
  readScript,
  readTranscript,
  TRANSCRIPT_FORMAT,
  writeTranscript,
  type TranscriptEntry,
  type TranscriptHeader,
} from "./script.js";

export interface RunOptions {
  readonly port?: string;
  readonly script?: string;
  readonly transcript?: string;
  readonly record?: string;
  readonly rules?: string;
  readonly sku?: string;
  readonly timeout: number;
  readonly json?: boolean;
}

/** Where the real replies come from: the exchanges one by one, and the SKU they are of. */
interface RealSource {
  readonly header: TranscriptHeader;
  /** Each exchange with the real module, with the script line it came from. */
  entries(): AsyncIterable<{ entry: TranscriptEntry; line?: number }>;
  close(): Promise<void>;
}

async function serialSource(options: RunOptions & { port: string; script: string }): Promise<RealSource> {
  const steps = readScript(options.script);
  const real = await SerialModule.open(options.port, options.timeout);
  try {
    const probe = await real.send({ req: "card.version" });
    const sku = options.sku ?? skuOf(probe.reply, options.port);
    const header: TranscriptHeader = {
      format: TRANSCRIPT_FORMAT,
      version: 1,
      sku,
      ...(probe.reply ? { module: probe.reply } : {}),
      port: options.port,
      recorded: new Date().toISOString(),
    };
    return {
      header,
      async *entries() {
        for (const step of steps) yield { entry: await real.send(step.request), line: step.line };
      },
      close: () => real.close(),
    };
  } catch (error) {
    await real.close();
    throw error;
  }
}

function transcriptSource(file: string, sku: string | undefined): RealSource {
  const transcript = readTranscript(file);
  return {
    header: sku ? { ...transcript.header, sku } : transcript.header,
    async *entries() {
      for (const entry of transcript.entries) yield { entry };
    },
    close: () => Promise.resolve(),
  };
}

/**
 * `cardsim compare`: the real module's replies (from the port, or a transcript) against a
 * simulated module's; prints the differences and returns the exit status (0 same, 1 differ).
 */
export async function runCompare(options: RunOptions, print: (text: string) => void): Promise<number> {
  const rules = new RuleSet(loadRules(options.rules));
  const source =
    options.port && options.script
      ? await serialSource({ ...options, port: options.port, script: options.script })
      : transcriptSource(options.transcript!, options.sku);
  const exchanges: Exchange[] = [];
  const recorded: TranscriptEntry[] = [];
  let sim: SimulatedEnd | undefined;
  try {
    sim = await SimulatedEnd.start(source.header.sku);
    const real = options.port ? `the module on ${options.port}` : `the transcript ${options.transcript}`;
    if (!options.json) print(`comparing ${real} with a simulated ${source.header.sku}\n`);
    for await (const { entry, line } of source.entries()) {
      recorded.push(entry);
      const exchange = await compareStep(exchanges.length + 1, entry, sim, rules);
      exchanges.push(exchange);
      if (!options.json) for (const text of exchangeLines(exchange, line)) print(text + "\n");
    }
  } finally {
    await sim?.close();
    await source.close();
    if (options.record) writeTranscript(options.record, { header: source.header, entries: recorded });
  }
  if (options.json) print(JSON.stringify(jsonReport(source.header.sku, exchanges)) + "\n");
  else print(summaryLine(exchanges) + "\n");
  return exchanges.some(differs) ? 1 : 0;
}

/**
 * Replays a transcript against a simulated module without printing: the exchanges that differ,
 * as `--json` reports them. What a test made of a transcript asserts on (docs/compare.md).
 */
export async function transcriptDifferences(
  file: string,
  rulesFile?: string,
): Promise<ReturnType<typeof jsonReport>["exchanges"]> {
  const out: string[] = [];
  const options = { transcript: file, timeout: 0, json: true, ...(rulesFile ? { rules: rulesFile } : {}) };
  await runCompare(options, (text) => out.push(text));
  return (JSON.parse(out.join("")) as ReturnType<typeof jsonReport>).exchanges;
}
