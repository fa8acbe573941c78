import type { Command } from "commander";
import { HostLineClient } from "../hil/HostLineClient.js";
import { parseHostPort, parseInteger } from "./options.js";

interface ReqOptions {
  tcp?: { host: string; port: number };
  serial?: string;
  timeout: number;
  crc?: boolean;
}

export function registerReqCommand(program: Command): void {
  program
    .command("req")
    .description("send one request to a module and print its reply (exit status 1 if the reply has err)")
    .argument("<JSON>", 'the request, e.g. \'{"req":"card.version"}\'')
    .option("--tcp <HOST:PORT>", "module's TCP port (default 127.0.0.1:9600)", parseHostPort)
    .option("--serial <DEV[@BAUD]>", "a serial device (a real module, a USB adapter, or cardsim's --pty)")
    .option("--timeout <MS>", "how long to wait for the reply", parseInteger, 30_000)
    .option("--crc", "add a request CRC, as note-c does, and check the reply's")
    .action(async (json: string, options: ReqOptions) => {
      let request: unknown;
      try {
        request = JSON.parse(json);
      } catch (error) {
        program.error(`the request is not JSON: ${(error as Error).message}`);
      }
      if (typeof request !== "object" || request === null || Array.isArray(request)) {
        program.error("the request must be a JSON object");
      }
      const client = options.serial
        ? await HostLineClient.serial(options.serial)
        : await HostLineClient.tcp(options.tcp ?? parseHostPort("127.0.0.1:9600"));
      try {
        const reply = await client.transaction(json, { timeoutMs: options.timeout, crc: options.crc });
        if (reply === undefined) return;
        process.stdout.write(reply + "\n");
        if (/"err":/.test(reply)) process.exitCode = 1;
      } finally {
        await client.close();
      }
    });
}
