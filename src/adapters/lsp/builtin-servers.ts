// The language servers toolbelt knows without config. Each one applies when its program is installed:
// on PATH, or in the project's node_modules/.bin. None is ever downloaded.

import { existsSync, readFileSync, realpathSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { findCommand, programArgv, projectDirs } from "./find-command.ts"
import {
  isLaunch,
  type Launch,
  type LaunchPlace,
  type NotInstalled,
  type ServerDefinition,
} from "./server-definition.ts"

interface Entry {
  readonly id: string
  readonly extensions: readonly string[]
  readonly rootMarkers: readonly string[]
  /** The program to look for, and its arguments. */
  readonly program: string
  readonly args: readonly string[]
  /** How to install it, for the message when it is missing. */
  readonly install: string
}

/** A server started the same way everywhere: its program, found, with fixed arguments. */
function installed(entry: Entry): ServerDefinition {
  return {
    id: entry.id,
    extensions: entry.extensions,
    rootMarkers: entry.rootMarkers,
    launch: (place) => launchProgram(entry, place),
  }
}

function launchProgram(entry: Entry, place: LaunchPlace): Launch | NotInstalled {
  const program = findCommand({ name: entry.program, ...place })
  if (!program)
    return {
      missing: `${entry.program} was not found on PATH or in the project's node_modules/.bin (install: ${entry.install})`,
    }
  return { argv: programArgv(program, entry.args) }
}

const LOCKFILES = ["package-lock.json", "bun.lock", "bun.lockb", "pnpm-lock.yaml", "yarn.lock"]

const TYPESCRIPT: Entry = {
  id: "typescript",
  extensions: [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"],
  rootMarkers: ["tsconfig.json", "jsconfig.json", ...LOCKFILES, "package.json"],
  program: "typescript-language-server",
  args: ["--stdio"],
  install: "npm i -D typescript-language-server typescript",
}

/**
 * TypeScript and JavaScript: a project on TypeScript 7 (the native compiler, which has no tsserver) gets
 * its own `tsc --lsp --stdio`; any other gets typescript-language-server, which uses the project's
 * tsserver (or the one `initialization.tsserver.path` names).
 */
const typescript: ServerDefinition = {
  id: TYPESCRIPT.id,
  extensions: TYPESCRIPT.extensions,
  rootMarkers: TYPESCRIPT.rootMarkers,
  // Its syntax-only server answers navigation while the project loads: a definition then stops at the
  // import instead of the declaration. An agent wants the real answer, a moment later.
  initialization: { tsserver: { useSyntaxServer: "never" } },
  launch(place) {
    const native = place.projectPrograms === false ? undefined : nativeTypescript(place)
    if (native) return { argv: programArgv(native, ["--lsp", "--stdio"]) }
    const launch = launchProgram(TYPESCRIPT, place)
    if (!isLaunch(launch) || place.projectPrograms !== false) return launch
    return ownTypescript(launch, place)
  },
}

/**
 * typescript-language-server prefers the workspace's TypeScript to any other: in a project no person
 * trusted it is told to use its own (or the one config names), and with neither it does not start.
 */
function ownTypescript(launch: Launch, place: LaunchPlace): Launch | NotInstalled {
  const configured = (place.initialization?.tsserver as { path?: unknown } | undefined)?.path
  if (typeof configured === "string" && configured) return launch
  const program = launch.argv.find((arg) => arg.includes("typescript-language-server")) ?? launch.argv[0]!
  let tsserver: string | undefined
  try {
    const lib = dirname(createRequire(realpathSync(program)).resolve("typescript"))
    if (existsSync(join(lib, "tsserver.js"))) tsserver = join(lib, "tsserver.js")
  } catch {
    tsserver = undefined
  }
  if (tsserver) return { ...launch, initialization: { tsserver: { path: tsserver } } }
  return {
    missing:
      "typescript-language-server would run the project's own TypeScript (node_modules/typescript), which runs only in a project you trusted (toolbelt trust DIR); or name a TypeScript of your own in your config: lsp.typescript.initialization.tsserver.path",
  }
}

/** The `tsc` of the project's TypeScript when it is version 7 or later. */
function nativeTypescript({ root, directory }: LaunchPlace): string | undefined {
  for (const dir of projectDirs(root, directory)) {
    const pkg = join(dir, "node_modules", "typescript")
    let version: string
    try {
      version =
        (JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as { version?: string }).version ?? ""
    } catch {
      continue
    }
    if (Number(version.split(".")[0]) >= 7) return join(pkg, "bin", "tsc")
    return undefined
  }
  return undefined
}

/** One server started the same way everywhere: id, extensions, root markers, command, how to install it. */
type Row = readonly [
  id: string,
  extensions: readonly string[],
  rootMarkers: readonly string[],
  /** The program to look for and its arguments, split at spaces. */
  command: string,
  install: string,
]

const ROWS: readonly Row[] = [
  [
    "pyright",
    [".py", ".pyi"],
    ["pyrightconfig.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "Pipfile"],
    "pyright-langserver --stdio",
    "npm i -D pyright, or pip install pyright",
  ],
  ["gopls", [".go"], ["go.work", "go.mod"], "gopls", "go install golang.org/x/tools/gopls@latest"],
  ["rust-analyzer", [".rs"], ["Cargo.toml"], "rust-analyzer", "rustup component add rust-analyzer"],
  [
    "clangd",
    [".c", ".h", ".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".m", ".mm"],
    ["compile_commands.json", "compile_flags.txt", ".clangd", "CMakeLists.txt", "Makefile"],
    "clangd",
    "apt install clangd, or brew install llvm",
  ],
  ["bash", [".sh", ".bash"], [], "bash-language-server start", "npm i -g bash-language-server"],
  ["yaml", [".yaml", ".yml"], [], "yaml-language-server --stdio", "npm i -g yaml-language-server"],
  [
    "lua",
    [".lua"],
    [".luarc.json", ".luarc.jsonc", ".stylua.toml", "stylua.toml"],
    "lua-language-server",
    "brew install lua-language-server, or a release from its project",
  ],
  ["ruby-lsp", [".rb", ".rake", ".gemspec", ".ru"], ["Gemfile"], "ruby-lsp", "gem install ruby-lsp"],
  ["zls", [".zig", ".zon"], ["build.zig"], "zls", "a zls release matching your zig"],
  [
    "jdtls",
    [".java"],
    ["pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"],
    "jdtls",
    "brew install jdtls, or the Eclipse JDT LS release",
  ],
  [
    "kotlin",
    [".kt", ".kts"],
    ["settings.gradle.kts", "settings.gradle", "build.gradle.kts", "pom.xml"],
    "kotlin-language-server",
    "brew install kotlin-language-server",
  ],
  ["csharp", [".cs"], ["*.sln", "*.csproj"], "csharp-ls", "dotnet tool install --global csharp-ls"],
  ["sourcekit-lsp", [".swift"], ["Package.swift"], "sourcekit-lsp", "it comes with the Swift toolchain"],
  ["intelephense", [".php"], ["composer.json"], "intelephense --stdio", "npm i -g intelephense"],
  ["dart", [".dart"], ["pubspec.yaml"], "dart language-server --protocol=lsp", "it comes with the Dart SDK"],
  ["elixir-ls", [".ex", ".exs"], ["mix.exs"], "elixir-ls", "brew install elixir-ls"],
  ["ocaml-lsp", [".ml", ".mli"], ["dune-project", "*.opam"], "ocamllsp", "opam install ocaml-lsp-server"],
  [
    "haskell",
    [".hs", ".lhs"],
    ["stack.yaml", "cabal.project", "*.cabal"],
    "haskell-language-server-wrapper --lsp",
    "ghcup install hls",
  ],
  ["gleam", [".gleam"], ["gleam.toml"], "gleam lsp", "it comes with gleam"],
  [
    "clojure-lsp",
    [".clj", ".cljs", ".cljc", ".edn"],
    ["deps.edn", "project.clj", "shadow-cljs.edn", "bb.edn"],
    "clojure-lsp",
    "brew install clojure-lsp/brew/clojure-lsp-native",
  ],
  [
    "terraform",
    [".tf", ".tfvars"],
    [".terraform", ".terraform.lock.hcl"],
    "terraform-ls serve",
    "brew install hashicorp/tap/terraform-ls",
  ],
  ["nixd", [".nix"], ["flake.nix"], "nixd", "nix profile install nixpkgs#nixd"],
  [
    "svelte",
    [".svelte"],
    ["svelte.config.js", "svelte.config.mjs", ...LOCKFILES, "package.json"],
    "svelteserver --stdio",
    "npm i -D svelte-language-server",
  ],
  [
    "texlab",
    [".tex", ".bib"],
    [".latexmkrc", "latexmkrc", ".texlabroot", "texlabroot"],
    "texlab",
    "cargo install texlab, or brew install texlab",
  ],
  ["tinymist", [".typ"], ["typst.toml"], "tinymist", "cargo install tinymist, or brew install tinymist"],
]

function entryOf([id, extensions, rootMarkers, command, install]: Row): Entry {
  const [program, ...args] = command.split(" ")
  return { id, extensions, rootMarkers, program: program!, args, install }
}

/** The built-in servers, by name. */
export const BUILTIN_SERVERS: ReadonlyMap<string, ServerDefinition> = new Map(
  [typescript, ...ROWS.map((row) => installed(entryOf(row)))].map((server) => [server.id, server]),
)
