import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url))

export default defineConfig({
  resolve: {
    // Tests import the package by its own name, as users do, and get the sources.
    alias: [
      { find: /^agent-toolbelt$/, replacement: src("index.ts") },
      { find: /^agent-toolbelt\/tool$/, replacement: src("runtime/tool/index.ts") },
      { find: /^agent-toolbelt\/plugin$/, replacement: src("adapters/plugins/index.ts") },
      { find: /^agent-toolbelt\/ai$/, replacement: src("adapters/ai/index.ts") },
      { find: /^agent-toolbelt\/mcp$/, replacement: src("surfaces/mcp-server/index.ts") },
    ],
  },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    reporters: ["default", "./test/summary-reporter.ts"],
  },
})
