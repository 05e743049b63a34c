// How long after its last change a file's stat can stand for its content: the "racily clean" window.
import { statfsSync } from "node:fs"
import type { FileVersion } from "./read-ledger.ts"

/**
 * The window where nothing is known of the file system: file times may come from a coarse clock (FAT's
 * 2 s, a second on old ext and HFS+) or from another machine's (NFS, SMB, FUSE), so a write in the same
 * tick can leave size and times unchanged. A change this old can no longer be followed by one that looks
 * the same: any later write moves the ctime (which no user call can set back) past it.
 */
export const SETTLED_MS = 2000

/**
 * The window on a local Linux file system that keeps sub-second times. Its times come from the kernel's
 * coarse realtime clock, which trails the fine one by at most a tick (10 ms at the lowest HZ Linux has,
 * 100; finer still with multigrain timestamps), and are kept to the nanosecond: five ticks of margin.
 */
export const FINE_SETTLED_MS = 50

/**
 * Linux file systems (statfs `f_type`) that live on this machine, so their times come from its clock:
 * ext2/3/4, XFS, Btrfs, tmpfs, overlayfs (its upper layer's times), F2FS, ZFS, bcachefs, ramfs. Whether a
 * given one keeps sub-second times (ext4 with small inodes does not) is read from the file's own times.
 */
const LOCAL_FILE_SYSTEMS = new Set([
  0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630, 0xf2f52010, 0x2fc12fc1, 0xca451a4e, 0x858458f6,
])

/** Devices seen, whether each is a local file system, and when that was learned (a handful a process). */
const localDevices = new Map<number, { readonly local: boolean; readonly at: number }>()
const MAX_DEVICES = 256

/**
 * How long what was learned of a device holds: an unmounted file system's device number can be given to
 * another (anonymous ones: tmpfs, overlayfs, FUSE), so it is asked again now and then.
 */
const DEVICE_RECHECK_MS = 60_000

/**
 * Learns the file system of `path`'s device (`dev`, from its stat): a statfs, on Linux only, once per
 * device a minute. Until a device is known, its files settle in SETTLED_MS.
 */
export function noteFileSystem(path: string, dev: number, now = Date.now()): void {
  if (process.platform !== "linux") return
  const known = localDevices.get(dev)
  if (known && now - known.at < DEVICE_RECHECK_MS && now >= known.at) return
  let local = false
  try {
    local = LOCAL_FILE_SYSTEMS.has(Number(statfsSync(path).type))
  } catch {
    // Unknown: the wide window.
  }
  if (localDevices.size >= MAX_DEVICES) localDevices.clear()
  localDevices.set(dev, { local, at: now })
}

/**
 * How old a version's last change must be before its stat stands for its content: FINE_SETTLED_MS on a
 * local file system whose times for this file have a sub-second part (a file system that keeps whole
 * seconds shows none; a fine one almost never lacks one, and then takes the wide window),
 * SETTLED_MS otherwise.
 */
export function settlingMs(version: FileVersion): number {
  if (localDevices.get(version.dev)?.local !== true) return SETTLED_MS
  const subSecond = version.mtimeMs % 1000 !== 0 || version.ctimeMs % 1000 !== 0
  return subSecond ? FINE_SETTLED_MS : SETTLED_MS
}

/** Whether `version`'s last change was at least its settling time before `now`. */
export function hasSettled(version: FileVersion, now: number): boolean {
  return now - Math.max(version.mtimeMs, version.ctimeMs) >= settlingMs(version)
}
