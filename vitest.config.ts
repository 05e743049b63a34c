import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url))

export default defineConfig({
  resolve: {
    // Tests import the package by its own name, as users do, and get the sources.
    alias: [
      { find: /^toolbelt$/, replacement: src("index.ts") },
      { find: /^toolbelt\/tool$/, replacement: src("tool/index.ts") },
      { find: /^toolbelt\/plugin$/, replacement: src("plugin/index.ts") },
      { find: /^toolbelt\/ai$/, replacement: src("ai/index.ts") },
      { find: /^toolbelt\/mcp$/, replacement: src("mcp/server/index.ts") },
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
