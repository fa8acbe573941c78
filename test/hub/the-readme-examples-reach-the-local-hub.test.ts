import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHub, type RunningHub } from "../../runtime/startHub.js";
import { REPO } from "../../tools/packedPackage.js";

const run = promisify(execFile);

/** The README's fenced block of `lang` that contains `marker`. */
async function readmeBlock(lang: string, marker: string): Promise<string> {
  const readme = await readFile(join(REPO, "README.md"), "utf8");
  const blocks = [...readme.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1]!);
  const block = blocks.find((b) => b.includes(marker));
  if (!block) throw new Error(`README.md has no ${lang} block with ${marker}`);
  return block;
}

describe("README.md against a local hub", () => {
  let dir: string;
  let hub: RunningHub;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "cardsim-readme-"));
    hub = await startHub({ dir, listen: "127.0.0.1:0", tlsListen: false });
    await hub.services.devices.register({
      deviceUid: "dev:864475040523995",
      projectUid: hub.credentials.project_uid,
      productUid: hub.credentials.product_uid,
      sku: "NOTE-MBNAN",
      firmwareModule: null,
    });
  });

  afterAll(async () => {
    await hub.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("sets $TOKEN and $PROJECT from the credentials file", async () => {
    const block = await readmeBlock("sh", "export TOKEN=");
    const exports = block
      .split("\n")
      .filter((l) => l.startsWith("export "))
      .join("\n")
      .replaceAll("./.cardsim/", `${dir}/`);
    const { stdout } = await run("sh", ["-c", `${exports}\necho "$TOKEN $PROJECT"`]);
    expect(stdout.trim()).toBe(`${hub.credentials.token} ${hub.credentials.project_uid}`);
  });

  it("points @blues-inc/notehub-js at the local hub in five lines", async () => {
    const block = await readmeBlock("js", "@blues-inc/notehub-js");
    expect(block.trim().split("\n")).toHaveLength(5);
    const { stdout } = await run(
      process.execPath,
      ["--input-type=module", "-e", block.replace("http://127.0.0.1:7480", hub.url)],
      {
        cwd: REPO,
        env: { ...process.env, TOKEN: hub.credentials.token, PROJECT: hub.credentials.project_uid },
      },
    );
    expect(stdout).toContain("dev:864475040523995");
  });
});
