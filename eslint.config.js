// One linter config for the whole repository. The firmware core must stay platform-free:
// it receives Clock, Random, storage and links as ports, so Node and hardware I/O imports and
// ambient time/randomness are errors under firmware/.
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

export default tseslint.config(
  { ignores: ["node_modules/**", "dist/**", "coverage/**", "hil/bridge/rp2040/**"] },
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
  {
    // core/ is shared by the module and the hub, so it is platform-free too.
    files: ["firmware/**/*.ts", "core/**/*.ts"],
    ignores: ["firmware/**/*.test.ts"],
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "no-restricted-imports": [
        "error",
        {
          paths: platformImports.map((name) => ({
            name,
            message: "firmware/ is platform-free: receive this capability as a port.",
          })),
          patterns: [
            { group: ["node:*"], message: "firmware/ is platform-free: no Node built-ins." },
            {
              group: ["**/hil/**", "**/cli/**", "**/boards/**", "**/hub/**"],
              message: "firmware/ must not depend on the edge.",
            },
          ],
        },
      ],
      "no-restricted-globals": [
        "error",
        { name: "setTimeout", message: "Use the injected Clock." },
        { name: "setInterval", message: "Use the injected Clock." },
        { name: "setImmediate", message: "Use the injected Clock." },
        { name: "clearTimeout", message: "Use the injected Clock." },
        { name: "clearInterval", message: "Use the injected Clock." },
        { name: "process", message: "firmware/ is platform-free." },
        { name: "Buffer", message: "Use Uint8Array in the core." },
        { name: "require", message: "ESM only." },
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
    },
  },
);
