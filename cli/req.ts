import type { Command } from "commander";
import type { HostLineClient } from "../hil/HostLineClient.js";
import { CliError } from "./CliError.js";
import { parseHostPort, parseInteger } from "./options.js";

interface ReqOptions {
  tcp?: { host: string; port: number };
  serial?: string;
  timeout: number;
  crc?: boolean;
}

const DEFAULT_TCP = "127.0.0.1:9600";

export function registerReqCommand(program: Command): void {
  program
    .command("req")
    .description("send one request to a module and print its reply (exit status 1 if the reply has err)")
    .argument("<JSON>", 'the request, e.g. \'{"req":"card.version"}\'')
    .option("--tcp <HOST:PORT>", `module's TCP port (default ${DEFAULT_TCP})`, parseHostPort)
    .option("--serial <DEV[@BAUD]>", "a serial device (a real module, a USB adapter, or cardsim's --pty)")
    .option("--timeout <MS>", "how long to wait for the reply", parseInteger, 30_000)
    .option("--crc", "add a request CRC, as note-c does, and check the reply's")
    .action(async (json: string, options: ReqOptions) => {
      let request: unknown;
      try {
        request = JSON.parse(json);
      } catch (error) {
        throw new CliError(
          `the request is not JSON (${(error as Error).message}): quote it, '{"req":"card.version"}'`,
        );
      }
      if (typeof request !== "object" || request === null || Array.isArray(request)) {
        throw new CliError(`the request must be a JSON object, like '{"req":"card.version"}'`);
      }
      const { HostLineClient: Client } = await import("../hil/HostLineClient.js");
      const client = options.serial
        ? await Client.serial(options.serial).catch((error: unknown) => {
            throw new CliError((error as Error).message);
          })
        : await connectTcp(Client, options.tcp ?? parseHostPort(DEFAULT_TCP), options.tcp !== undefined);
      try {
        // Over cardsim's TCP port the module also says which arguments it ignored.
        if (!options.serial) client.enableNotices();
        const reply = await client
          .transaction(json, { timeoutMs: options.timeout, crc: options.crc })
          .catch((error: unknown) => {
            throw new CliError(
              `${(error as Error).message}: is it a module on the other end? (--timeout MS waits longer)`,
            );
          });
        for (const notice of client.notices) process.stderr.write(`warning: ${notice}\n`);
        if (reply === undefined) return;
        process.stdout.write(reply + "\n");
        if (/"err":/.test(reply)) process.exitCode = 1;
      } finally {
        await client.close();
      }
    });
}

async function connectTcp(
  client: typeof HostLineClient,
  address: { host: string; port: number },
  given: boolean,
) {
  try {
    return await client.tcp(address);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const where = `${address.host}:${address.port}`;
    if (code === "ECONNREFUSED") {
      throw new CliError(
        given
          ? `no module is listening on ${where}: check the address the module printed (its "tcp" line)`
          : `no module is listening on ${where}: start one with "npm start" (cardsim up) or "cardsim module", or pass --tcp HOST:PORT`,
      );
    }
    throw new CliError(`${(error as Error).message}: check --tcp HOST:PORT`);
  }
}
