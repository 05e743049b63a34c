// Bundles the compiled command line (dist/surfaces/cli/bin.js) into dist/cli.bundle.js plus one chunk per lazily
// loaded part (each command, the MCP SDK, the AI SDK), so a start loads a handful of files instead of
// ~350 modules: Node's module loader, not the work, was most of `toolbelt call read`'s start-up.
//
// 1. Bundle from dist/ (tsc's output, so the bundle is exactly the compiled code) with the dependencies
//    inlined, except the tree-sitter packages, which locate their wasm files from their own location.
// 2. Every module keeps its own URL: `import.meta.url` in dist/X/Y.js becomes the URL of dist/X/Y.js,
//    computed from the bundle's location (the bundle files sit in dist/ itself). Tool descriptions,
//    worker files, package.json and the plugin helper are then found where the unbundled module would
//    find them, in a clone and in an installed package alike.
// 3. Our modules' imports of Node's built-ins become `process.getBuiltinModule` reads, the costly ones
//    (child processes, crypto, worker threads, sockets...) on first use (scripts/builtin-imports.js). A
//    dependency's `import process from "node:process"` reads the global instead (the same object): its
//    facade computes process.allowedNodeEnvironmentFlags, a tenth of a Node start, for `toolbelt mcp`.
// 4. ASCII output (non-ASCII characters escaped): an all-ASCII source is decoded and kept one byte per
//    character; one "…" in a 700 KB chunk makes V8 hold, hash and scan all of it as UTF-16.
import { readdirSync, rmSync } from "node:fs"
import { dirname, join, relative, sep } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "rolldown"
import { rewriteBuiltinImports } from "./builtin-imports.js"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const dist = join(root, "dist")
const PREFIX = "cli.bundle"
/** A dependency's default import of node:process under the global's own name. */
const PROCESS_IMPORT = /^import\s+process\s+from\s*["']node:process["'];?$/gm

// Chunks of an earlier build have other hashes: remove them so dist/ holds only this build's.
for (const name of readdirSync(dist)) if (name.startsWith(PREFIX)) rmSync(join(dist, name))

await build({
  input: { [PREFIX]: join(dist, "surfaces", "cli", "bin.js") },
  platform: "node",
  // The ES module builds: jsonc-parser's "main" is a UMD file that requires its parts by relative path.
  resolve: { mainFields: ["module", "main"] },
  external: [/^node:/, /^web-tree-sitter(\/|$)/, /^tree-sitter-bash(\/|$)/],
  logLevel: "warn",
  output: {
    dir: dist,
    format: "esm",
    charset: "ascii",
    // Less to parse at every start; names are kept, so a defect's stack still names its functions.
    minify: { mangle: false, compress: true, codegen: { removeWhitespace: true } },
    entryFileNames: "[name].js",
    chunkFileNames: `${PREFIX}-[name]-[hash].js`,
  },
  plugins: [
    {
      name: "builtins-without-facade",
      transform(code, id) {
        if (!id.startsWith(dist + sep))
          return code.includes("node:process")
            ? code.replace(PROCESS_IMPORT, "const process = globalThis.process;")
            : null
        return rewriteBuiltinImports(code, (source) => this.parse(source))
      },
    },
    {
      name: "keep-module-url",
      transform(code, id) {
        if (!id.startsWith(dist + sep) || !code.includes("import.meta.url")) return null
        const own = `./${relative(dist, id).split(sep).join("/")}`
        return code.replaceAll("import.meta.url", `new URL(${JSON.stringify(own)}, import.meta.url).href`)
      },
    },
  ],
})
