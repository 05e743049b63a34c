// Runs the bundled command line (dist/cli.bundle.cjs and the chunks it requires) with a V8 code cache that
// holds what a run really compiled. bin/toolbelt.js imports it once it has chosen the build.
//
// Why not Node's own compile cache: it stores a module's code right after compiling it, before it runs,
// so it holds only the top-level code; every function a command calls is compiled again at every start
// (the core chunk: ~1 MB of source, ~25 ms of `toolbelt call read`'s ~150 ms over `node -e 0`). Here
// each chunk is compiled with vm.Script, and the code cache is made once the command has run (at exit, or
// 2 s in for a long-lived one), so it holds the functions that command ran. The next start of the same
// command deserializes them and compiles nothing it had compiled before.
//
// - One cache per chunk and command (`call-read`, `tools`, `mcp`...): each holds its own command's
//   functions, and no command's cache is rewritten by another's.
// - A cache is named after the chunk's size, modification time and inode, the Node version, the platform
//   and the V8 flags (execArgv, NODE_OPTIONS): a rebuilt or edited chunk is never run from an older
//   chunk's cache (V8 itself checks only the source's length). A cache V8 rejects is made again.
// - Only in the private directory bin/toolbelt.js gives (one this user alone can write), written to a
//   temp file of mode 0600 and renamed into place, so a reader never meets half a cache. Caches not
//   rewritten for 30 days are removed when one is written.
// - Without a directory (or TOOLBELT_CODE_CACHE=0) the chunks run the same way, without a cache.
const { closeSync, fstatSync, openSync, readSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } =
  process.getBuiltinModule("node:fs")
const { createRequire } = process.getBuiltinModule("node:module")
const { basename, dirname, join } = process.getBuiltinModule("node:path")
const vm = process.getBuiltinModule("node:vm")

/** How a chunk requires another: a file of this build beside it. */
const CHUNK = /^\.\/cli\.bundle[^/\\]*\.cjs$/
const CACHE_SUFFIX = ".v8cache"
/** When a long-lived command (mcp, serve) writes its caches: its start-up has run by then. */
const SAVE_AFTER_MS = 2000
const MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000
const WRAPPER_START = "(function (exports, require, module, __filename, __dirname) {"
const WRAPPER_END = "\n})"

/**
 * Runs `entry` as CommonJS; its requires of `./cli.bundle*` chunks load through the cache, any other
 * through Node. `cacheDir` undefined: no cache is read or written. `command` names the caches.
 */
export function runBundle(entry, { cacheDir, command }) {
  const loader = new BundleLoader(dirname(entry), cacheDir, command)
  loader.load(entry)
}

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
  #saving = false

  constructor(dir, cacheDir, command) {
    this.#dir = dir
    this.#cacheDir = cacheDir
    const runtime = [
      process.version,
      process.platform,
      process.arch,
      ...process.execArgv,
      process.env.NODE_OPTIONS,
    ]
    this.#flags = fnv1a(runtime.join("\0"))
    this.#command = command
  }

  load(file) {
    const known = this.#modules.get(file)
    if (known) return known.exports
    const module = { id: file, filename: file, exports: {}, loaded: false }
    this.#modules.set(file, module)
    const { source, stat } = readSource(file)
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
    const base = createRequire(file)
    const require = (id) => (this.#isChunk(id) ? this.load(join(this.#dir, id)) : base(id))
    require.resolve = base.resolve
    require.cache = base.cache
    module.require = require
    script.runInThisContext().call(module.exports, module.exports, require, module, file, this.#dir)
    module.loaded = true
    return module.exports
  }

  /** Another command's cache of the chunk `stem` names, if there is one. */
  #another(stem) {
    try {
      this.#names ??= readdirSync(this.#cacheDir)
    } catch {
      this.#names = []
    }
    const name = this.#names.find((name) => name.startsWith(stem) && name.endsWith(CACHE_SUFFIX))
    return name === undefined ? undefined : join(this.#cacheDir, name)
  }

  #isChunk(id) {
    return CHUNK.test(id)
  }

  #remember(script, cacheFile) {
    if (this.#unsaved.length === 0 && !this.#saving) {
      this.#saving = true
      process.once("exit", () => this.#save())
      setTimeout(() => this.#save(), SAVE_AFTER_MS).unref()
    }
    this.#unsaved.push({ script, cacheFile })
  }

  /** Writes the caches of what was compiled without one; never fails the command. */
  #save() {
    const unsaved = this.#unsaved.splice(0)
    if (unsaved.length === 0) return
    for (const { script, cacheFile } of unsaved) {
      const temp = `${cacheFile}.${process.pid}.tmp`
      try {
        writeFileSync(temp, script.createCachedData(), { mode: 0o600, flag: "wx" })
        renameSync(temp, cacheFile)
      } catch {
        rmSync(temp, { force: true })
      }
    }
    pruneOld(this.#cacheDir)
  }
}

/** The chunk's text and its stat, from one open (the stat names its cache). */
function readSource(file) {
  const fd = openSync(file, "r")
  try {
    const stat = fstatSync(fd)
    const buffer = Buffer.allocUnsafe(stat.size)
    let read = 0
    while (read < stat.size) {
      const n = readSync(fd, buffer, read, stat.size - read, null)
      if (n === 0) break
      read += n
    }
    return { source: buffer.toString("utf8", 0, read), stat }
  } finally {
    closeSync(fd)
  }
}

function readCache(file) {
  if (file === undefined) return undefined
  let fd
  try {
    fd = openSync(file, "r")
  } catch {
    return undefined
  }
  try {
    const { size } = fstatSync(fd)
    const buffer = Buffer.allocUnsafe(size)
    return readSync(fd, buffer, 0, size, 0) === size ? buffer : undefined
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}

/** Removes caches (and temp files a killed writer left) not written for MAX_AGE_MS. */
function pruneOld(dir) {
  try {
    const now = Date.now()
    for (const name of readdirSync(dir)) {
      if (!name.endsWith(CACHE_SUFFIX) && !name.endsWith(".tmp")) continue
      const path = join(dir, name)
      const age = now - statSync(path).mtimeMs
      if (age > (name.endsWith(".tmp") ? 60_000 : MAX_AGE_MS)) rmSync(path, { force: true })
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
