import { existsSync, readdirSync, readFileSync } from "node:fs"
import { RUN_MARKER } from "./env.ts"

/** A process of a command's tree, as reported to the model ("killed 1234 sleep 100"). */
export interface ProcessInfo {
  readonly pid: number
  readonly command: string
}

interface Stat {
  readonly state: string
  readonly ppid: number
  readonly pgrp: number
  readonly sid: number
  /** Start time in clock ticks since boot: together with the pid it names one process, even after reuse. */
  readonly start: string
  readonly comm: string
}

interface Tracked {
  readonly start: string
  readonly comm: string
  /** The command line, read when first needed (most processes are never reported); only ever a real one. */
  command?: string
}

/**
 * A running member. `named` is false when its command line could not be read: a process caught
 * between the steps of an exec has none for a moment, and is shown by its short name meanwhile.
 */
export interface Member extends ProcessInfo {
  readonly named: boolean
}

/** Whether the process table can be read from /proc (Linux). Elsewhere only the process group is used. */
export const HAS_PROC = process.platform === "linux" && existsSync("/proc/self/stat")

/**
 * Every process a command started, found and killed together.
 *
 * The command's shell leads its own session (spawned detached), so everything it starts is in that
 * session unless it calls setsid. Those that do (double-forked daemons, `setsid cmd &`) are found two
 * more ways: by their parent chain, which periodic scans record while the parent is still alive, and
 * by the run marker in their environment, which they inherit and keep even after their parent exits.
 * Only processes newer than the root are looked at, so a scan costs a few reads of /proc, not a walk
 * of every process on the machine.
 *
 * Without /proc (macOS, BSD) the tree is the process group.
 */
export class ProcessTree {
  readonly root: number
  /** The root is the child subreaper (see reaper.ts): never SIGKILLed, told to kill everything instead. */
  readonly reaper: boolean
  readonly #marker: string
  readonly #rootStart: string | undefined
  readonly #tracked = new Map<number, Tracked>()
  /** Processes known not to be ours (pid:start), so their environment is read once. */
  readonly #foreign = new Set<string>()

  /**
   * `marker`: the value of RUN_MARKER in the command's environment. `reaper`: the root is the child
   * subreaper, to which every orphan of the tree is re-parented, so the parent chain finds them all.
   */
  constructor(options: { root: number; marker: string; reaper?: boolean }) {
    this.root = options.root
    this.reaper = options.reaper ?? false
    this.#marker = `\0${RUN_MARKER}=${options.marker}\0`
    const stat = HAS_PROC ? readStat(options.root) : undefined
    this.#rootStart = stat?.start
    if (stat) this.#track(options.root, stat)
  }

  /** Finds new members of the tree; cheap enough to run every few hundred milliseconds. */
  scan(): void {
    if (!HAS_PROC || this.#rootStart === undefined) return
    const candidates = new Map<number, Stat>()
    for (const pid of newerPids(this.root)) {
      if (this.#tracked.has(pid)) continue
      const stat = readStat(pid)
      if (!stat || Number(stat.start) < Number(this.#rootStart)) continue
      if (this.#foreign.has(`${pid}:${stat.start}`)) continue
      candidates.set(pid, stat)
    }
    // Same session or group, or a child of a member: parents come before children, but not always in pid
    // order, so repeat until nothing is added.
    for (let added = true; added; ) {
      added = false
      for (const [pid, stat] of candidates) {
        if (stat.sid === this.root || stat.pgrp === this.root || this.#tracked.has(stat.ppid)) {
          this.#track(pid, stat)
          candidates.delete(pid)
          added = true
        }
      }
    }
    for (const [pid, stat] of candidates) {
      if (this.#hasMarker(pid)) this.#track(pid, stat)
      else this.#foreign.add(`${pid}:${stat.start}`)
    }
  }

  /**
   * The members still running (zombies count as gone: they have exited and hold nothing). A reaper
   * root is not listed: it is toolbelt's own, and exits by itself once the rest is gone.
   */
  alive(): Member[] {
    if (!HAS_PROC || this.#rootStart === undefined) {
      return groupExists(this.root) ? [{ pid: this.root, command: "", named: true }] : []
    }
    const out: Member[] = []
    for (const [pid, tracked] of this.#tracked) {
      const stat = readStat(pid)
      if (!stat || stat.start !== tracked.start || stat.state === "Z" || stat.state === "X") {
        this.#tracked.delete(pid)
        continue
      }
      if (this.reaper && pid === this.root) continue
      // A fork shows its parent's command line until it execs: refresh when the name changed. An empty
      // read (mid-exec, or exiting) is not kept, so the next look can name it; meanwhile the last real
      // line, or the short name, stands in.
      const current = stat.comm === tracked.comm ? tracked : this.#track(pid, stat)
      current.command ??= commandLine(pid) || undefined
      const command = current.command ?? tracked.command
      out.push({ pid, command: command ?? stat.comm, named: command !== undefined })
    }
    return out
  }

  /**
   * Whether a reaper root still runs (zombies count as gone). Right after the spawn it may not have
   * started the shell yet, so the tree shows no member while the command is about to run: a kill must
   * not call that done until the reaper itself is gone.
   */
  reaperRunning(): boolean {
    if (!this.reaper) return false
    if (!HAS_PROC) return groupExists(this.root)
    const stat = readStat(this.root)
    return stat !== undefined && stat.start === this.#rootStart && stat.state !== "Z" && stat.state !== "X"
  }

  /**
   * Sends `signal` to the group and to every member found (the ones outside the group included). A
   * reaper root gets SIGUSR1 for SIGKILL: it must outlive the others to catch the orphans they leave,
   * and on SIGUSR1 it SIGKILLs every descendant until none is left, then exits.
   */
  signal(signal: NodeJS.Signals, only?: ReadonlySet<number>): void {
    const spareRoot = this.reaper && signal === "SIGKILL"
    if (!only && !spareRoot) sendSignal(-this.root, signal)
    for (const pid of HAS_PROC ? this.#tracked.keys() : [this.root]) {
      if (only && !only.has(pid)) continue
      sendSignal(pid, spareRoot && pid === this.root ? "SIGUSR1" : signal)
    }
  }

  #track(pid: number, stat: Stat): Tracked {
    const tracked: Tracked = { start: stat.start, comm: stat.comm }
    this.#tracked.set(pid, tracked)
    return tracked
  }

  #hasMarker(pid: number): boolean {
    try {
      return `\0${readFileSync(`/proc/${pid}/environ`, "latin1")}`.includes(this.#marker)
    } catch {
      return false
    }
  }
}

export interface KillOptions {
  /** How long SIGTERM has to work before SIGKILL (default 3 s). */
  readonly graceMs?: number
  readonly pollMs?: number
  /** How long to wait for SIGKILL to finish the tree before giving up (default 5 s). */
  readonly forceMs?: number
}

export interface KillReport {
  /** The processes that were running when the kill started, or appeared during it. */
  readonly killed: ProcessInfo[]
  /** Processes that survived SIGKILL (uninterruptible sleep, another user's): normally empty. */
  readonly survivors: ProcessInfo[]
}

/**
 * Kills the whole tree: SIGTERM to the group and every member, then SIGKILL to whatever is left after
 * the grace period. Members that appear meanwhile (a shell forking as it dies) are signalled too.
 * Resolves when nothing of the tree is running.
 */
export async function killTree(tree: ProcessTree, options: KillOptions = {}): Promise<KillReport> {
  const { graceMs = 3000, pollMs = 25, forceMs = 5000 } = options
  const killed = new Map<number, string>()
  // The latest look names a process best (what it exec'd last); a short name never replaces a real line.
  const note = (list: Member[]) => {
    for (const info of list) if (info.named || !killed.has(info.pid)) killed.set(info.pid, info.command)
  }
  tree.scan()
  let alive = tree.alive()
  // A process caught mid-exec has no command line for a moment, and SIGTERM may end it before the next
  // look: wait one poll so the report names what it runs (a daemon is reported as itself, not as "sh").
  if (alive.some((info) => !info.named)) {
    await delay(pollMs)
    tree.scan()
    alive = tree.alive()
  }
  note(alive)
  tree.signal("SIGTERM")
  const termed = new Set(alive.map((info) => info.pid))
  for (const [phase, until] of [
    ["SIGTERM", Date.now() + graceMs],
    ["SIGKILL", Date.now() + graceMs + forceMs],
  ] as const) {
    if (phase === "SIGKILL") {
      if (alive.length === 0 && !tree.reaperRunning()) break
      tree.signal("SIGKILL")
    }
    for (;;) {
      tree.scan()
      alive = tree.alive()
      note(alive)
      // A reaper that still runs may be about to start the shell (a kill right after the spawn): the
      // tree is empty only once it is gone too (it exits by itself when its last child has).
      if (alive.length === 0 && !tree.reaperRunning()) {
        return { killed: report(killed), survivors: [] }
      }
      const fresh = alive.filter((info) => !termed.has(info.pid))
      if (fresh.length) {
        tree.signal(phase, new Set(fresh.map((info) => info.pid)))
        for (const info of fresh) termed.add(info.pid)
      }
      if (Date.now() >= until) break
      await delay(pollMs)
    }
  }
  return { killed: report(killed), survivors: alive }
}

/** Kills the tree at once with SIGKILL, synchronously: for process exit, where nothing can be awaited. */
export function killTreeNow(tree: ProcessTree): void {
  tree.scan()
  tree.signal("SIGKILL")
  for (let round = 0; round < 3; round++) {
    tree.scan()
    if (tree.alive().length === 0) return
    tree.signal("SIGKILL")
  }
}

function report(killed: Map<number, string>): ProcessInfo[] {
  return [...killed].map(([pid, command]) => ({ pid, command }))
}

/** Whether any process is left in the group (a group outlives its leader while members remain). */
export function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

function sendSignal(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal)
  } catch {
    // Gone already (ESRCH), or not ours (EPERM): nothing to do either way.
  }
}

/**
 * Pids allocated after `root`: pids grow until they wrap at pid_max, so unless the counter wrapped
 * since (the last pid is below the root), nothing older needs a look.
 */
function newerPids(root: number): number[] {
  let wrapped = false
  try {
    const last = Number(readFileSync("/proc/sys/kernel/ns_last_pid", "latin1"))
    // Nothing was started since the root (a shell builtin, a single exec'd program): no one to find.
    if (last === root) return []
    wrapped = last < root
  } catch {
    wrapped = true
  }
  const out: number[] = []
  for (const name of readdirSync("/proc")) {
    const code = name.charCodeAt(0)
    if (code < 48 || code > 57) continue
    const pid = Number(name)
    if (pid !== root && (wrapped || pid > root)) out.push(pid)
  }
  return out
}

function readStat(pid: number): Stat | undefined {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, "latin1")
  } catch {
    return undefined
  }
  // The command name is in parentheses and may itself contain spaces and parentheses.
  const close = text.lastIndexOf(")")
  const fields = text.slice(close + 2).split(" ")
  return {
    state: fields[0] ?? "",
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    sid: Number(fields[3]),
    start: fields[19] ?? "",
    comm: text.slice(text.indexOf("(") + 1, close),
  }
}

function commandLine(pid: number): string {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, "utf8")
    const line = raw.replace(/\0+$/, "").replaceAll("\0", " ")
    return line.length > 200 ? `${line.slice(0, 200)}…` : line
  } catch {
    return ""
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
