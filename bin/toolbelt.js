#!/bin/sh
":" //; f=$0; while [ -L "$f" ]; do l=$(readlink "$f"); case $l in /*) f=$l ;; *) f=${f%/*}/$l ;; esac; done
":" //; case $f in */*) ;; *) f=./$f ;; esac; n=${f%/*}/../node_modules/node/bin/node
":" //; [ -x "$n" ] || n=node; y=; case $1 in serve) case $NODE_OPTIONS in *semi-space*) ;; *) y=--max-semi-space-size=8 ;; esac ;; esac
":" //; exec "$n" $y "$f" "$@"
// Starts the toolbelt CLI. The four lines above are shell, and JavaScript that does nothing: run as a
// program (npm's bin link, an MCP client's "command"), /bin/sh picks the Node before any Node starts,
// the one pinned in our own dependencies when there is one (a clone), else the `node` on PATH, and
// execs it on this file: no older Node is started only to start another. `serve` gets 2 × 8 MiB
// semi-spaces (unless NODE_OPTIONS sets them): V8 otherwise grows its young generation to 128 MiB under
// load, most of serve's RSS (bench/serve-load.bench.ts: 319 MiB); with 4 MiB more was promoted (RSS
// 213-219 MiB against 168-178 with 8, in the same runs, and 5-10% fewer calls/s).
// Run as `node bin/toolbelt.js` instead, this file stays plain JavaScript that any Node can parse, because
// a user's PATH may hold an older Node (20 on many machines) than toolbelt runs on (22.13+, 24 LTS the
// target). When the running Node cannot run toolbelt, it re-runs this file on the pinned Node, before
// anything else is done here (the pinned Node chooses what to run), or, when there is none, says in one
// line which Node to use.
// Which code runs: the build (dist/cli.bundle.cjs, made by `npm run build`, which `npm install` runs)
// when installed as a package, or in a clone when no source file changed since the build started
// (dist/build-stamp.json): an edit is never shadowed by a stale build. Else the TypeScript sources
// (src/surfaces/cli/bin.ts). TOOLBELT_RUN=build or =source forces one.
// Built-ins through process.getBuiltinModule where this Node has it (20.16+, 22.3+): an ESM import of
// node:fs builds its facade (fs's streams); node:child_process costs a tenth of a start. Older Nodes import.
const builtin = (name) => process.getBuiltinModule?.(name) ?? import(name)
const fs = await builtin("node:fs")
const nodeModule = await builtin("node:module")
const { homedir } = await builtin("node:os")
const { basename, dirname, isAbsolute, join, sep } = await builtin("node:path")
const { fileURLToPath, pathToFileURL } = await builtin("node:url")

// Node prints an ExperimentalWarning when toolbelt first uses a feature Node still calls experimental
// (node:sqlite on Node 22, type stripping before it was stable), on every command: noise about a choice
// toolbelt made, which its user cannot act on. Only that kind is dropped; every other warning prints.
const emitWarning = process.emitWarning
process.emitWarning = function (warning, ...rest) {
  const options = rest[0]
  const kind = warning instanceof Error ? warning.name : typeof options === "string" ? options : options?.type
  if (kind === "ExperimentalWarning") return
  return Reflect.apply(emitWarning, this, [warning, ...rest])
}

/** Set by a re-running parent (below) for the child it starts, so the child can outlive it by nothing. */
const PARENT_ENV = "TOOLBELT_RERUN_PARENT"

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, "..")
const sourceDir = join(root, "src")
const source = join(sourceDir, "surfaces", "cli", "bin.ts")
const bundle = join(root, "dist", "cli.bundle.cjs")
// Node refuses to strip types from files under node_modules, so an installed package runs its build.
const installed = here.split(sep).includes("node_modules")

function chooseEntry() {
  const forced = process.env.TOOLBELT_RUN
  if (forced === "build" || installed || !fs.existsSync(source)) return bundle
  if (forced === "source") return source
  return buildIsCurrent() ? bundle : source
}

/** Whether the build started after the last change to any source file it compiles. */
function buildIsCurrent() {
  let started
  try {
    started = JSON.parse(fs.readFileSync(join(root, "dist", "build-stamp.json"), "utf8")).started
  } catch {
    return false
  }
  return typeof started === "number" && fs.existsSync(bundle) && unchangedSince(sourceDir, started)
}

/**
 * Whether nothing under `dir` changed at or after `time` (a folder's time changes when a file in it is
 * added, removed or renamed: an editor's safe save). Tests and fixtures are not compiled. A walk of its
 * own: readdirSync's recursive mode cost 18-40 ms of every start from a clone, this 8.
 */
function unchangedSince(dir, time) {
  if (fs.statSync(dir).mtimeMs >= time) return false
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}${sep}${entry.name}`
    if (!entry.isDirectory() || entry.name.includes("fixtures")) {
      if (!entry.name.endsWith(".test.ts") && fs.statSync(path).mtimeMs >= time) return false
    } else if (!unchangedSince(path, time)) return false
  }
  return true
}

// What the chosen entry needs of this Node, asked of the runtime itself, so a Node started with or without
// a flag is judged by what it really has: node:sqlite (unflagged from 22.13 and 23.4), and for the
// sources, type stripping (on by default from 22.18 and 23.6). A Node without node:sqlite hands over at
// once: which entry to run is the pinned Node's to choose (walking src/ for it here would be paid twice).
const hasSqlite =
  Boolean(process.versions.bun) ||
  (typeof process.getBuiltinModule === "function" && process.getBuiltinModule("node:sqlite") !== undefined)
const stripsTypes = Boolean(process.versions.bun || process.features.typescript)
const entry = hasSqlite ? chooseEntry() : undefined
const canRun = entry !== undefined && (stripsTypes || !entry.endsWith(".ts"))

/** The one line that says why this Node cannot run toolbelt and which Node to use. */
function whichNode() {
  const rerun = process.env[PARENT_ENV]
    ? `the Node toolbelt pins (${process.execPath}) cannot run it either: `
    : ""
  const [major, minor] = process.versions.node.split(".").map(Number)
  const shipsSqlite = major >= 24 || (major === 23 && minor >= 4) || (major === 22 && minor >= 13)
  if (!hasSqlite && shipsSqlite)
    return `${rerun}this Node (${process.version}) was started without node:sqlite, which toolbelt needs: remove --no-experimental-sqlite from its flags and from NODE_OPTIONS.`
  const floor = hasSqlite ? "22.18" : "22.13"
  const pinned = installed ? "" : `, or run npm install in ${root} so the Node 24 it pins is there`
  const remedy = `install Node 24 LTS (or any ${floor}+) and run toolbelt with it${pinned}`
  if (hasSqlite)
    return `${rerun}toolbelt runs from its TypeScript sources here (no build newer than them), which needs Node 22.18 or newer (this is Node ${process.version}): run npm run build in ${root}, or ${remedy}.`
  return `${rerun}toolbelt needs Node 22.13 or newer (this is Node ${process.version}): ${remedy}.`
}

/**
 * A directory for caches of V8's compiled code (`compile-cache`: Node's, for the modules Node loads;
 * `code-cache`: BundleLoader's below, for the build) that only this user can write:
 * `$XDG_CACHE_HOME/toolbelt/<leaf>` (else `~/.cache/...`, `%LOCALAPPDATA%\\...` on Windows). Never
 * Node's default, the shared system temp dir: another local account could create that directory first and
 * plant compiled code, which this process would then run as its own. A directory this user does not own,
 * or that others can write, or a link, is not used (toolbelt then starts without that cache).
 */
function privateCacheDir(leaf) {
  const env = process.env
  const windows = process.platform === "win32"
  const xdg = env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : undefined
  const home = env.HOME || (windows ? undefined : accountHome())
  const base = windows ? env.LOCALAPPDATA : (xdg ?? (home ? join(home, ".cache") : undefined))
  if (!base || !isAbsolute(base)) return undefined
  const own = join(base, "toolbelt")
  const dir = join(own, leaf)
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    if (windows) return dir
    for (const path of [own, dir]) {
      const stat = fs.lstatSync(path)
      if (!stat.isDirectory() || stat.uid !== process.getuid() || (stat.mode & 0o022) !== 0) return undefined
    }
    return dir
  } catch {
    return undefined
  }
}

/** Without HOME (a service, a bare env): the account's home from the password database, if it has one. */
function accountHome() {
  try {
    return homedir()
  } catch {
    return undefined
  }
}

/**
 * What names the build's code caches: the command, and for `call` the tool (`call-read`), so each cache
 * holds the functions of what it ran. Options are skipped; a word that is no command or tool name is `x`.
 */
function commandName(argv) {
  const words = argv.filter((arg) => !arg.startsWith("-"))
  const command = /^[a-z][a-z-]{0,31}$/.test(words[0] ?? "") ? words[0] : "x"
  if (command !== "call") return command
  return `call-${/^[A-Za-z][A-Za-z0-9_-]{0,63}$/.test(words[1] ?? "") ? words[1] : "x"}`
}

function pinnedNode() {
  try {
    const require = nodeModule.createRequire(import.meta.url)
    const bin = join(dirname(require.resolve("node/package.json")), "bin", "node")
    return fs.existsSync(bin) ? bin : undefined
  } catch {
    return undefined
  }
}

// ---- Running the build (here: a second module cost ~5 ms of every start). Node's compile cache is made
// right after compiling, so it holds only top-level code and every function a command calls is compiled
// again at each start (~25 ms of `call read`). Here each chunk runs through vm.Script and its code cache
// is made once the command ran (at exit, once a long-lived one is idle, or when the command says its
// start-up is done). One cache per chunk and command (`call-read`, `tools`, `mcp`), else another
// command's of the same chunk; named after the chunk's size, mtime and inode, the Node version, platform
// and V8 flags, so an edited chunk never runs from an older cache (V8 checks only the length); a cache V8
// rejects is made again. Only in privateCacheDir("code-cache"), as 0600 temp files renamed into place,
// unused ones removed after 30 days. No directory, or TOOLBELT_CODE_CACHE=0: no cache.
const vm = await builtin("node:vm")

/** How a chunk requires another: a file of this build beside it. */
const CHUNK = /^\.\/cli\.bundle[^/\\]*\.cjs$/
const CACHE_SUFFIX = ".v8cache"
// A long-lived command (mcp, serve) writes its caches once idle (its loop busy under a third of 0.5 s),
// from 2 s in: never mid-load, where making a ~1 MB cache stops the loop for tens of ms (serve's p99).
const SAVE_AFTER_MS = 2000
const IDLE_CHECK_MS = 500
const IDLE_BELOW = 0.3
const MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000
const WRAPPER_START = "(function (exports, require, module, __filename, __dirname) {"
const WRAPPER_END = "\n})"

/**
 * Runs chunks as CommonJS: their requires of `./cli.bundle*` chunks load through the cache, any other
 * through Node. `cacheDir` undefined: no cache is read or written. `command` names the caches.
 */
class BundleLoader {
  #dir
  #cacheDir
  #flags
  #command
  /** The cache directory's names, read once, when a chunk has no cache of its own command. */
  #names
  /** file → its module object, set before it runs (a cycle gets the exports made so far, as in Node). */
  #modules = new Map()
  /** What was compiled without an accepted cache and still has to be saved. */
  #unsaved = []
  /** Whether the saves at exit and when idle are set up (once, at the first chunk without a cache). */
  #scheduled = false

  constructor(dir, cacheDir, command) {
    this.#dir = dir
    this.#cacheDir = cacheDir
    const { version, platform, arch, execArgv, env } = process
    this.#flags = fnv1a([version, platform, arch, ...execArgv, env.NODE_OPTIONS].join("\0"))
    this.#command = command
  }

  load(file) {
    const known = this.#modules.get(file)
    if (known) return known.exports
    const module = { id: file, filename: file, exports: {}, loaded: false }
    this.#modules.set(file, module)
    const { bytes, stat } = readWhole(file)
    const source = bytes.toString("utf8")
    const stem = `${basename(file)}.${fnv1a(`${stat.size}:${stat.mtimeMs}:${stat.ino}`)}.${this.#flags}.`
    const cacheFile = this.#cacheDir
      ? join(this.#cacheDir, `${stem}${this.#command}${CACHE_SUFFIX}`)
      : undefined
    // This command's own cache, else another command's of the same chunk (the core chunk is shared: what
    // `call` compiled of the store and the config serves `mcp` too), which is then saved as this one's.
    const own = cacheFile ? readCache(cacheFile) : undefined
    const cachedData = own ?? (cacheFile ? readCache(this.#another(stem)) : undefined)
    const script = new vm.Script(`${WRAPPER_START}${source}${WRAPPER_END}`, {
      filename: file,
      // Positions in stack traces are the chunk's own, not shifted by the wrapper on its first line.
      columnOffset: -WRAPPER_START.length,
      cachedData,
      importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    })
    if (cacheFile && (!own || script.cachedDataRejected)) this.#remember(script, cacheFile)
    const base = nodeModule.createRequire(file)
    const chunkOrNode = (id) => (CHUNK.test(id) ? this.load(join(this.#dir, id)) : base(id))
    const require = Object.assign(chunkOrNode, { resolve: base.resolve, cache: base.cache })
    module.require = require
    try {
      script.runInThisContext().call(module.exports, module.exports, require, module, file, this.#dir)
    } catch (error) {
      this.#modules.delete(file) // as Node does: a later require runs it again, not half of it
      throw error
    }
    module.loaded = true
    return module.exports
  }

  /** Another command's cache of the chunk `stem` names, if there is one. */
  #another(stem) {
    try {
      if (this.#names === undefined) this.#names = fs.readdirSync(this.#cacheDir)
    } catch {
      this.#names = []
    }
    const name = this.#names.find((name) => name.startsWith(stem) && name.endsWith(CACHE_SUFFIX))
    return name === undefined ? undefined : join(this.#cacheDir, name)
  }

  #remember(script, cacheFile) {
    this.#unsaved.push({ script, cacheFile })
    if (this.#scheduled) return
    this.#scheduled = true
    process.once("exit", () => this.save())
    setTimeout(() => this.#saveWhenIdle(), SAVE_AFTER_MS).unref()
  }

  #saveWhenIdle(since = performance.eventLoopUtilization()) {
    setTimeout(() => {
      const { utilization } = performance.eventLoopUtilization(since)
      if (utilization < IDLE_BELOW) this.save()
      else this.#saveWhenIdle()
    }, IDLE_CHECK_MS).unref()
  }

  /** Writes the caches of what was compiled without one; never fails the command. */
  save() {
    const unsaved = this.#unsaved.splice(0)
    if (unsaved.length === 0) return
    for (const { script, cacheFile } of unsaved) {
      const temp = `${cacheFile}.${process.pid}.tmp`
      try {
        fs.writeFileSync(temp, script.createCachedData(), { mode: 0o600, flag: "wx" })
        fs.renameSync(temp, cacheFile)
      } catch {
        fs.rmSync(temp, { force: true })
      }
    }
    pruneOld(this.#cacheDir)
  }
}

/** A file's bytes and its stat, from one open (the chunk's stat names its cache). */
function readWhole(file) {
  const fd = fs.openSync(file, "r")
  try {
    const stat = fs.fstatSync(fd)
    const bytes = Buffer.allocUnsafe(stat.size)
    let read = 0
    for (let n = 1; n > 0 && read < stat.size; read += n)
      n = fs.readSync(fd, bytes, read, stat.size - read, null)
    return { bytes: bytes.subarray(0, read), stat }
  } finally {
    fs.closeSync(fd)
  }
}

/** A cache's bytes, or undefined when there is none (or it cannot be read: it is only a cache). */
function readCache(file) {
  try {
    return file === undefined ? undefined : readWhole(file).bytes
  } catch {
    return undefined
  }
}

/** Removes caches (and temp files a killed writer left) not written for MAX_AGE_MS. */
function pruneOld(dir) {
  try {
    const now = Date.now()
    for (const name of fs.readdirSync(dir)) {
      if (!name.endsWith(CACHE_SUFFIX) && !name.endsWith(".tmp")) continue
      const path = join(dir, name)
      const age = now - fs.statSync(path).mtimeMs
      if (age > (name.endsWith(".tmp") ? 60_000 : MAX_AGE_MS)) fs.rmSync(path, { force: true })
    }
  } catch {
    // Pruning is housekeeping: a file another process removed first is not an error.
  }
}

/** FNV-1a (32 bits) as 8 hex digits: a name, not a checksum (node:crypto costs ~10 ms to load). */
function fnv1a(text) {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash.toString(16).padStart(8, "0")
}

if (canRun) {
  const parent = Number(process.env[PARENT_ENV])
  // Not inherited further: a command that runs toolbelt itself must not watch this process's parent.
  delete process.env[PARENT_ENV]
  if (parent > 0) {
    // The parent may be killed with SIGKILL, which it cannot pass on: then this process is re-parented,
    // and ends itself as if the parent had passed SIGTERM on, so no call outlives the command run.
    setInterval(() => {
      if (process.ppid !== parent) process.kill(process.pid, "SIGTERM")
    }, 250).unref()
  }
  // NODE_COMPILE_CACHE, when the user sets it, wins: Node has enabled it before this file runs.
  const compileCache = privateCacheDir("compile-cache")
  if (compileCache) nodeModule.enableCompileCache?.(compileCache)
  if (entry === bundle) {
    const cacheDir = process.env.TOOLBELT_CODE_CACHE === "0" ? undefined : privateCacheDir("code-cache")
    const loader = new BundleLoader(dirname(bundle), cacheDir, commandName(process.argv.slice(2)))
    // For a command that knows when its start-up is done (serve, before it listens): save the caches now.
    globalThis[Symbol.for("toolbelt.saveCodeCache")] = () => loader.save()
    loader.load(bundle)
  } else await import(pathToFileURL(entry).href)
} else {
  // A re-run that still cannot run (a broken pinned Node, a flag in NODE_OPTIONS) must not re-run again.
  const node = process.env[PARENT_ENV] ? undefined : pinnedNode()
  if (!node) {
    process.stderr.write(`${whichNode()}\n`)
    process.exit(2)
  }
  const { spawn } = await builtin("node:child_process")
  const child = spawn(node, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: "inherit",
    env: { ...process.env, [PARENT_ENV]: String(process.pid) },
  })
  child.on("error", (error) => {
    process.stderr.write(
      `toolbelt could not start the Node it pins (${node}: ${error.message}): install Node 24 LTS (or any 22.13+) and run toolbelt with it.\n`,
    )
    process.exit(2)
  })
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal))
  child.on("exit", (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal)
      process.kill(process.pid, signal)
    } else process.exit(code ?? 1)
  })
}
