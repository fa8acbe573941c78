// One linter config for the whole repository.
// - Layers: imports point down only (DESIGN.md, Architecture): core <- protocol <- firmware <- hil
//   <- boards <- runtime <- harness <- cli; the hub stands on core and protocol alone. Each folder
//   may import only the folders below it; an import against the order is an error.
// - core/, protocol/ and firmware/ are platform-free: they receive Clock, Random, storage and
//   links as ports, so Node and hardware I/O imports and ambient time/randomness are errors there.
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

const platformImports = [
  "fs",
  "node:fs",
  "fs/promises",
  "node:fs/promises",
  "net",
  "node:net",
  "http",
  "node:http",
  "https",
  "node:https",
  "child_process",
  "node:child_process",
  "dgram",
  "node:dgram",
  "os",
  "node:os",
  "tls",
  "node:tls",
  "worker_threads",
  "node:worker_threads",
  "serialport",
  "i2c-bus",
  "better-sqlite3",
  "fastify",
];

/** Each layer and the layers it may import (everything else of the repository is forbidden). */
export const LAYERS = {
  core: [],
  protocol: ["core"],
  firmware: ["core", "protocol"],
  hub: ["core", "protocol"],
  hil: ["core", "protocol", "firmware"],
  boards: ["core", "protocol", "firmware", "hil"],
  runtime: ["core", "protocol", "firmware", "hil", "boards", "hub"],
  harness: ["core", "protocol", "firmware", "hil", "boards", "runtime", "hub"],
  cli: ["core", "protocol", "firmware", "hil", "boards", "runtime", "harness", "hub"],
};
const PLATFORM_FREE = new Set(["core", "protocol", "firmware"]);

function layerRules(layer) {
  const forbidden = [...Object.keys(LAYERS), "bench", "test", "tools"].filter(
    (other) => other !== layer && !LAYERS[layer]?.includes(other),
  );
  const patterns = [
    {
      group: forbidden.map((other) => `**/${other}/**`),
      message: `${layer}/ may import only ${LAYERS[layer].join(", ") || "nothing of the repository"} (imports point down: see DESIGN.md).`,
    },
  ];
  if (!PLATFORM_FREE.has(layer)) return { "no-restricted-imports": ["error", { patterns }] };
  patterns.push({ group: ["node:*"], message: `${layer}/ is platform-free: no Node built-ins.` });
  return {
    "@typescript-eslint/no-explicit-any": "error",
    "no-restricted-imports": [
      "error",
      {
        paths: platformImports.map((name) => ({
          name,
          message: `${layer}/ is platform-free: receive this capability as a port.`,
        })),
        patterns,
      },
    ],
    "no-restricted-globals": [
      "error",
      { name: "setTimeout", message: "Use the injected Clock." },
      { name: "setInterval", message: "Use the injected Clock." },
      { name: "setImmediate", message: "Use the injected Clock." },
      { name: "clearTimeout", message: "Use the injected Clock." },
      { name: "clearInterval", message: "Use the injected Clock." },
      { name: "process", message: `${layer}/ is platform-free.` },
      { name: "Buffer", message: "Use Uint8Array in the core." },
      { name: "require", message: "ESM only." },
      { name: "fetch", message: "Use the HubLink port." },
      { name: "crypto", message: "Use the Crypto port." },
    ],
    "no-restricted-properties": [
      "error",
      { object: "Date", property: "now", message: "Use the injected Clock." },
      { object: "Math", property: "random", message: "Use the injected Random." },
      { object: "performance", property: "now", message: "Use the injected Clock." },
    ],
    "no-restricted-syntax": [
      "error",
      {
        selector: "NewExpression[callee.name='Date'][arguments.length=0]",
        message: "Use the injected Clock.",
      },
    ],
  };
}

export default tseslint.config(
  { ignores: ["node_modules/**", "dist/**", ".dist-*/**", "coverage/**", "hil/bridge/rp2040/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
      ],
      "@typescript-eslint/consistent-type-imports": "error",
      "no-constant-condition": ["error", { checkLoops: false }],
    },
  },
  // The few CommonJS files: the command's launcher (bin/package.json) and what it requires, which
  // Node starts without its ES module loader (docs/performance.md, "Command start-up").
  {
    files: ["bin/cardsim.js", "**/*.cjs"],
    languageOptions: { sourceType: "commonjs" },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  // The browser console: a client of the hub's REST API and live stream only, in the browser.
  {
    files: ["console/**/*.ts"],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: [...Object.keys(LAYERS), "bench", "test", "tools"].map((other) => `**/${other}/**`),
              message: "console/ speaks only the hub's REST API and live stream: it imports no other folder.",
            },
            { group: ["node:*"], message: "console/ runs in the browser: no Node built-ins." },
          ],
        },
      ],
    },
  },
  ...Object.keys(LAYERS).map((layer) => ({
    files: [`${layer}/**/*.ts`],
    ignores: [`${layer}/**/*.test.ts`],
    rules: layerRules(layer),
  })),
);
