import { closeSync, fstatSync, openSync, readSync } from "node:fs"
import { nodeCrypto } from "./sha256.ts"

/**
 * Cryptographically strong random bytes without loading node:crypto at start-up (~10 ms, see sha256.ts):
 * on Linux and macOS they are read from the kernel's generator, /dev/urandom (what node:crypto's
 * generator is seeded from), a pool of POOL_BYTES at a time. Elsewhere, or if /dev/urandom is not the
 * kernel's character device (a chroot, a container without /dev), node:crypto fills them.
 */
const POOL_BYTES = 4096
const pool = Buffer.alloc(POOL_BYTES)
let used = POOL_BYTES

/** `size` fresh random bytes; no byte is ever handed out twice. */
export function randomBytes(size: number): Buffer {
  const out = Buffer.allocUnsafe(size)
  for (let filled = 0; filled < size; ) {
    if (used === POOL_BYTES) refill()
    const n = Math.min(size - filled, POOL_BYTES - used)
    pool.copy(out, filled, used, used + n)
    pool.fill(0, used, used + n)
    used += n
    filled += n
  }
  return out
}

/** One fresh random byte, from the pool (for ids drawn a character at a time). */
export function randomByte(): number {
  if (used === POOL_BYTES) refill()
  const byte = pool[used]!
  pool[used++] = 0
  return byte
}

/** `size` random bytes as 2 × size lowercase hex digits. */
export function randomHex(size: number): string {
  return randomBytes(size).toString("hex")
}

let kernel: boolean | undefined

function refill(): void {
  kernel ??= process.platform !== "win32"
  if (kernel && readKernel()) {
    used = 0
    return
  }
  kernel = false
  nodeCrypto().randomFillSync(pool)
  used = 0
}

/** Fills the pool from /dev/urandom; false when that is not possible here. */
function readKernel(): boolean {
  let fd: number | undefined
  try {
    fd = openSync("/dev/urandom", "r")
    if (!fstatSync(fd).isCharacterDevice()) return false
    for (let filled = 0; filled < POOL_BYTES; ) {
      const n = readSync(fd, pool, filled, POOL_BYTES - filled, null)
      if (n <= 0) return false
      filled += n
    }
    return true
  } catch {
    return false
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}
