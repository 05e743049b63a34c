// The language servers toolbelt knows without config. Each one applies when its program is installed:
// on PATH, or in the project's node_modules/.bin. None is ever downloaded.

import { readFileSync } from "node:fs"
import { join } from "node:path"
import { findCommand, programArgv, projectDirs } from "./find-command.ts"
import type { Launch, LaunchPlace, NotInstalled, ServerDefinition } from "./server-definition.ts"

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
    const native = nativeTypescript(place)
    return native ? { argv: programArgv(native, ["--lsp", "--stdio"]) } : launchProgram(TYPESCRIPT, place)
  },
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

const ENTRIES: readonly Entry[] = [
  {
    id: "pyright",
    extensions: [".py", ".pyi"],
    rootMarkers: [
      "pyrightconfig.json",
      "pyproject.toml",
      "setup.py",
      "setup.cfg",
      "requirements.txt",
      "Pipfile",
    ],
    program: "pyright-langserver",
    args: ["--stdio"],
    install: "npm i -D pyright, or pip install pyright",
  },
  {
    id: "gopls",
    extensions: [".go"],
    rootMarkers: ["go.work", "go.mod"],
    program: "gopls",
    args: [],
    install: "go install golang.org/x/tools/gopls@latest",
  },
  {
    id: "rust-analyzer",
    extensions: [".rs"],
    rootMarkers: ["Cargo.toml"],
    program: "rust-analyzer",
    args: [],
    install: "rustup component add rust-analyzer",
  },
  {
    id: "clangd",
    extensions: [".c", ".h", ".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".m", ".mm"],
    rootMarkers: ["compile_commands.json", "compile_flags.txt", ".clangd", "CMakeLists.txt", "Makefile"],
    program: "clangd",
    args: [],
    install: "apt install clangd, or brew install llvm",
  },
  {
    id: "bash",
    extensions: [".sh", ".bash"],
    rootMarkers: [],
    program: "bash-language-server",
    args: ["start"],
    install: "npm i -g bash-language-server",
  },
  {
    id: "yaml",
    extensions: [".yaml", ".yml"],
    rootMarkers: [],
    program: "yaml-language-server",
    args: ["--stdio"],
    install: "npm i -g yaml-language-server",
  },
  {
    id: "lua",
    extensions: [".lua"],
    rootMarkers: [".luarc.json", ".luarc.jsonc", ".stylua.toml", "stylua.toml"],
    program: "lua-language-server",
    args: [],
    install: "brew install lua-language-server, or a release from its project",
  },
  {
    id: "ruby-lsp",
    extensions: [".rb", ".rake", ".gemspec", ".ru"],
    rootMarkers: ["Gemfile"],
    program: "ruby-lsp",
    args: [],
    install: "gem install ruby-lsp",
  },
  {
    id: "zls",
    extensions: [".zig", ".zon"],
    rootMarkers: ["build.zig"],
    program: "zls",
    args: [],
    install: "a zls release matching your zig",
  },
  {
    id: "jdtls",
    extensions: [".java"],
    rootMarkers: ["pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"],
    program: "jdtls",
    args: [],
    install: "brew install jdtls, or the Eclipse JDT LS release",
  },
  {
    id: "kotlin",
    extensions: [".kt", ".kts"],
    rootMarkers: ["settings.gradle.kts", "settings.gradle", "build.gradle.kts", "pom.xml"],
    program: "kotlin-language-server",
    args: [],
    install: "brew install kotlin-language-server",
  },
  {
    id: "csharp",
    extensions: [".cs"],
    rootMarkers: ["*.sln", "*.csproj"],
    program: "csharp-ls",
    args: [],
    install: "dotnet tool install --global csharp-ls",
  },
  {
    id: "sourcekit-lsp",
    extensions: [".swift"],
    rootMarkers: ["Package.swift"],
    program: "sourcekit-lsp",
    args: [],
    install: "it comes with the Swift toolchain",
  },
  {
    id: "intelephense",
    extensions: [".php"],
    rootMarkers: ["composer.json"],
    program: "intelephense",
    args: ["--stdio"],
    install: "npm i -g intelephense",
  },
  {
    id: "dart",
    extensions: [".dart"],
    rootMarkers: ["pubspec.yaml"],
    program: "dart",
    args: ["language-server", "--protocol=lsp"],
    install: "it comes with the Dart SDK",
  },
  {
    id: "elixir-ls",
    extensions: [".ex", ".exs"],
    rootMarkers: ["mix.exs"],
    program: "elixir-ls",
    args: [],
    install: "brew install elixir-ls",
  },
  {
    id: "ocaml-lsp",
    extensions: [".ml", ".mli"],
    rootMarkers: ["dune-project", "*.opam"],
    program: "ocamllsp",
    args: [],
    install: "opam install ocaml-lsp-server",
  },
  {
    id: "haskell",
    extensions: [".hs", ".lhs"],
    rootMarkers: ["stack.yaml", "cabal.project", "*.cabal"],
    program: "haskell-language-server-wrapper",
    args: ["--lsp"],
    install: "ghcup install hls",
  },
  {
    id: "gleam",
    extensions: [".gleam"],
    rootMarkers: ["gleam.toml"],
    program: "gleam",
    args: ["lsp"],
    install: "it comes with gleam",
  },
  {
    id: "clojure-lsp",
    extensions: [".clj", ".cljs", ".cljc", ".edn"],
    rootMarkers: ["deps.edn", "project.clj", "shadow-cljs.edn", "bb.edn"],
    program: "clojure-lsp",
    args: [],
    install: "brew install clojure-lsp/brew/clojure-lsp-native",
  },
  {
    id: "terraform",
    extensions: [".tf", ".tfvars"],
    rootMarkers: [".terraform", ".terraform.lock.hcl"],
    program: "terraform-ls",
    args: ["serve"],
    install: "brew install hashicorp/tap/terraform-ls",
  },
  {
    id: "nixd",
    extensions: [".nix"],
    rootMarkers: ["flake.nix"],
    program: "nixd",
    args: [],
    install: "nix profile install nixpkgs#nixd",
  },
  {
    id: "svelte",
    extensions: [".svelte"],
    rootMarkers: ["svelte.config.js", "svelte.config.mjs", ...LOCKFILES, "package.json"],
    program: "svelteserver",
    args: ["--stdio"],
    install: "npm i -D svelte-language-server",
  },
  {
    id: "texlab",
    extensions: [".tex", ".bib"],
    rootMarkers: [".latexmkrc", "latexmkrc", ".texlabroot", "texlabroot"],
    program: "texlab",
    args: [],
    install: "cargo install texlab, or brew install texlab",
  },
  {
    id: "tinymist",
    extensions: [".typ"],
    rootMarkers: ["typst.toml"],
    program: "tinymist",
    args: [],
    install: "cargo install tinymist, or brew install tinymist",
  },
]

/** The built-in servers, by name. */
export const BUILTIN_SERVERS: ReadonlyMap<string, ServerDefinition> = new Map(
  [typescript, ...ENTRIES.map(installed)].map((server) => [server.id, server]),
)
