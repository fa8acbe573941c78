import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../support/cliProcess.js";

// `cardsim fleet` as a user runs it: each mistake in its flags or its workload file is one line on
// stderr and exit status 2; a run prints its summary (here as JSON, with a device's timeline) and
// leaves a hub directory behind.

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "cardsim-fleet-cli-"));
  writeFileSync(
    join(dir, "bad.yaml"),
    "groups:\n  - name: pumps\n    notefiles:\n      - { file: pump.qo, every: soon }\n",
  );
  writeFileSync(
    join(dir, "env.yaml"),
    'groups:\n  - name: pumps\n    environment:\n      - { at: 1h, vars: { rate: "5" } }\n',
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("cardsim fleet", () => {
  it("answers each mistake with one line saying what to do, and exit status 2", async () => {
    const hub = join(dir, "never");
    const cases: [string[], RegExp][] = [
      [["--dir", hub], /required option '--modules <N>' not specified/],
      [["--modules", "0", "--dir", hub], /--modules takes modules, a whole number of at least 1, not "0"/],
      [["--modules", "3"], /give --dir DIR \(the directory of the fleet's own hub\) or --hub URL/],
      [["--modules", "3", "--dir", hub, "--speed", "fast"], /give max or a multiple of real time like 60x/],
      [["--modules", "3", "--dir", hub, "--duration", "0"], /give a time above 0, like 1d or 6h/],
      [
        ["--modules", "3", "--hub", "https://localhost:1", "--speed", "max"],
        /--speed max needs the fleet's own hub/,
      ],
      [["--modules", "3", "--dir", hub, "--workers", "2"], /--workers needs --hub URL/],
      [["--modules", "3", "--dir", hub, "--shard", "2/2"], /expected i\/N with 0 <= i < N/],
      [
        ["--modules", "3", "--hub", "https://127.0.0.1:1", "--workload", join(dir, "env.yaml")],
        /are made through the hub's API: give the project owner's token \(--hub-token TOKEN/,
      ],
      [
        [
          "--modules",
          "3",
          "--hub",
          "https://127.0.0.1:1",
          "--hub-token",
          "t",
          "--workload",
          join(dir, "env.yaml"),
        ],
        /the hub at https:\/\/127\.0\.0\.1:1 cannot be reached: ECONNREFUSED/,
      ],
      [
        ["--modules", "3", "--dir", hub, "--workload", join(dir, "none.yaml")],
        /none\.yaml: no such file \(give sensors or a YAML or JSON workload file/,
      ],
      [
        ["--modules", "3", "--dir", hub, "--workload", join(dir, "bad.yaml")],
        /bad\.yaml: groups\[0\]\.notefiles\[0\]\.every: must be a time: a number with ms, s, m, h or d/,
      ],
    ];
    const runs = await Promise.all(cases.map(([args]) => runCli(["fleet", ...args], { timeoutMs: 120_000 })));
    for (const [i, run] of runs.entries()) {
      const [args, line] = cases[i]!;
      expect(run.stderr.trimEnd(), args.join(" ")).toMatch(new RegExp(`^cardsim fleet: .*${line.source}`));
      expect(run.stderr.trimEnd().split("\n"), run.stderr).toHaveLength(1);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stdout).toBe("");
    }
  }, 300_000);

  it("prints its summary as JSON, with the timeline of the device asked for", async () => {
    const hub = join(dir, "hub");
    const run = await runCli(
      ["fleet", "--modules", "3", "--duration", "3h", "--dir", hub, "--json", "--timeline", "1"],
      { timeoutMs: 240_000 },
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(Object.keys(summary).sort()).toEqual(
      [
        "errors",
        "events",
        "latency",
        "modules",
        "notes",
        "penaltyBoxes",
        "rssBytes",
        "sessions",
        "simulatedMs",
        "timelines",
        "wallMs",
      ].sort(),
    );
    expect(summary).toMatchObject({
      modules: 3,
      simulatedMs: 3 * 3_600_000,
      notes: { added: 36, up: 36, down: 0 },
      events: { notes: 36 },
      errors: {},
      penaltyBoxes: 0,
      sessions: { failed: 0 },
      latency: {
        hubMs: { p50: expect.any(Number), p99: expect.any(Number) },
        wallMs: { p50: expect.any(Number) },
      },
    });
    const timelines = summary["timelines"] as Record<string, { why: string; ok: boolean; notesUp: number }[]>;
    const [device, sessions] = Object.entries(timelines)[0]!;
    expect(device).toMatch(/^dev:8\d{14}$/);
    expect(sessions.length).toBeGreaterThanOrEqual(2);
    expect(sessions.every((s) => s.ok)).toBe(true);
    expect(sessions.reduce((n, s) => n + s.notesUp, 0)).toBe(12);
    expect(sessions.at(-1)!.why).toBe("explicit");
  }, 300_000);
});
