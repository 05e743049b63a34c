// Bundles the compiled command line (dist/surfaces/cli/bin.js) into dist/cli.bundle.cjs, one core chunk, and
// chunks for the lazily loaded parts (the other commands, the MCP SDK, the AI SDK), so a start loads a handful
// of files instead of ~350 modules: Node's module loader, not the work, was most of `toolbelt call read`'s start-up.
// CommonJS, in strict mode: bin/toolbelt.js runs the chunks through V8 with a code cache made after a
// run, so a start deserializes the functions it runs instead of compiling them (an ES module can be given
// a code cache only behind a flag, and Node's own compile cache keeps only what is compiled before a module
// runs). The sources therefore use no top-level await.
//
// 1. Bundle from dist/ (tsc's output, so the bundle is exactly the compiled code) with the dependencies
//    inlined, except the tree-sitter packages, which locate their wasm files from their own location.
// 2. Every module keeps its own URL: `import.meta.url` in dist/X/Y.js becomes the URL of dist/X/Y.js,
//    computed from the bundle's location (the bundle files sit in dist/ itself). Tool descriptions,
//    worker files, package.json and the plugin helper are then found where the unbundled module would
//    find them, in a clone and in an installed package alike. The location is each chunk's __dirname,
//    made a URL once per chunk (DIST_URL): the bundler's own stand-in for import.meta.url in CommonJS
//    calls require("url") at every use, and the first require of a start costs milliseconds.
// 3. Our modules' imports of Node's built-ins become `process.getBuiltinModule` reads, the costly ones
//    (child processes, crypto, worker threads, sockets...) on first use (scripts/builtin-imports.js). A
//    dependency's `import process from "node:process"` reads the global instead (the same object): its
//    facade computes process.allowedNodeEnvironmentFlags, a tenth of a Node start, for `toolbelt mcp`.
// 4. ASCII output (non-ASCII characters escaped): an all-ASCII source is decoded and kept one byte per
//    character; one "…" in a 700 KB chunk makes V8 hold, hash and scan all of it as UTF-16. String.raw
//    templates, which the bundler cannot escape, are made ASCII first (scripts/ascii-raw.js); a chunk
//    still not ASCII is named in a warning.
// 5. One core chunk: the `call` and `tools` commands and every module they import statically (the
//    runtime, the tools, Zod, ...), except what the entry itself imports. Split by which commands share
//    them, those modules were ~40 files, and Node's loader pays per file (resolve, read, decode, link);
//    `mcp`, `serve` and `run` load core and their own chunks. What is imported dynamically (the MCP and
//    AI SDKs, the search engines, ...) keeps its own chunks.
// 6. The tools' texts read beside their modules (descriptions) are put in the bundle as literals
//    (scripts/inline-texts.js): a file read each at start-up, ~20 for `tools` and `mcp`.
import { readdirSync, readFileSync, rmSync } from "node:fs"
import { dirname, join, relative, sep } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "rolldown"
import { asciiRawTemplates } from "./ascii-raw.js"
import { rewriteBuiltinImports } from "./builtin-imports.js"
import { inlineTexts } from "./inline-texts.js"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const dist = join(root, "dist")
const PREFIX = "cli.bundle"
/** A dependency's default import of node:process under the global's own name. */
const PROCESS_IMPORT = /^import\s+process\s+from\s*["']node:process["'];?$/gm
/** The file URL of dist/ (with its trailing slash), set at the top of every chunk (2). */
const DIST_URL = "__toolbeltDistUrl"
/** The commands whose modules, and every module they import statically, make the one core chunk (5). */
const CORE_ROOTS = [
  ["surfaces", "cli", "commands", "call.js"],
  ["surfaces", "cli", "commands", "tools.js"],
]
const ENTRY = join(dist, "surfaces", "cli", "bin.js")
/** The core chunk's modules, found once the module graph is complete (the plugin "core-chunk" below). */
const core = new Set()

// Chunks of an earlier build have other hashes: remove them so dist/ holds only this build's.
for (const name of readdirSync(dist)) if (name.startsWith(PREFIX)) rmSync(join(dist, name))

await build({
  input: { [PREFIX]: ENTRY },
  platform: "node",
  // The entry exports nothing anyone imports; the core group needs leave to place its modules freely.
  preserveEntrySignatures: "allow-extension",
  // The ES module builds: jsonc-parser's "main" is a UMD file that requires its parts by relative path.
  resolve: { mainFields: ["module", "main"] },
  external: [/^node:/, /^web-tree-sitter(\/|$)/, /^tree-sitter-bash(\/|$)/],
  logLevel: "warn",
  output: {
    dir: dist,
    format: "cjs",
    // ES modules are strict; their code must not turn sloppy by being bundled as CommonJS.
    strict: true,
    // globalThis.process: a bundled dependency may declare its own top-level `process` (turndown has a
    // function of that name), and this line is not code the bundler renames around.
    intro: `const ${DIST_URL} = globalThis.process.getBuiltinModule("node:url").pathToFileURL(__dirname + "/").href;`,
    charset: "ascii",
    // Less to parse at every start; names are kept, so a defect's stack still names its functions.
    minify: { mangle: false, compress: true, codegen: { removeWhitespace: true } },
    entryFileNames: "[name].cjs",
    chunkFileNames: `${PREFIX}-[name]-[hash].cjs`,
    // Only the modules core holds, not what they import: the entry's own modules stay in the entry.
    codeSplitting: {
      groups: [{ name: "core", test: (id) => core.has(id), includeDependenciesRecursively: false }],
    },
  },
  plugins: [
    {
      name: "core-chunk",
      buildEnd() {
        const closure = (roots) => {
          const seen = new Set()
          const visit = (id) => {
            if (seen.has(id)) return
            seen.add(id)
            for (const next of this.getModuleInfo(id)?.importedIds ?? []) visit(next)
          }
          for (const root of roots) visit(root)
          return seen
        }
        const entry = closure([ENTRY])
        for (const id of closure(CORE_ROOTS.map((parts) => join(dist, ...parts))))
          if (!entry.has(id)) core.add(id)
      },
    },
    {
      name: "ascii-raw-templates",
      transform(code) {
        return asciiRawTemplates(code, (source) => this.parse(source))
      },
    },
    {
      // Licence comments the bundler keeps as written (undici's names an author "Wärting").
      name: "ascii-legal-comments",
      renderChunk(code) {
        return code.replace(/\/\*![\s\S]*?\*\//g, (comment) =>
          comment.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`),
        )
      },
    },
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
      // Before keep-module-url: the texts are found by the module's own import.meta.url.
      name: "inline-tool-texts",
      transform(code, id) {
        if (!id.startsWith(dist + sep)) return null
        return inlineTexts(code, id, (path) => readFileSync(path, "utf8"))
      },
    },
    {
      name: "keep-module-url",
      transform(code, id) {
        if (!id.startsWith(dist + sep) || !code.includes("import.meta.url")) return null
        const own = `./${relative(dist, id).split(sep).join("/")}`
        return code.replaceAll("import.meta.url", `new URL(${JSON.stringify(own)}, ${DIST_URL}).href`)
      },
    },
  ],
})

// A chunk that is not all ASCII costs every start that loads it (4): say which, so it is fixed at the source.
for (const name of readdirSync(dist)) {
  if (!name.startsWith(PREFIX)) continue
  const at = readFileSync(join(dist, name), "latin1").search(/[\u0080-\uffff]/)
  if (at >= 0)
    console.warn(`bundle-cli: ${name} is not all ASCII (a character at offset ${at}): V8 holds it as UTF-16.`)
}
