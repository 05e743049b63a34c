// A `toolbelt serve` process for the benches: started, its address read from what it prints, stopped.
import { type ChildProcess, spawn } from "node:child_process"

export interface Serve {
  readonly url: string
  readonly pid: number
  stop(): Promise<void>
}

/** Runs `command args` in `dir` and resolves once serve printed its API address (rejects if it exits first). */
export async function spawnServe(
  command: string,
  args: readonly string[],
  dir: string,
  env: Record<string, string>,
): Promise<Serve> {
  const child: ChildProcess = spawn(command, args, { cwd: dir, env, stdio: ["ignore", "ignore", "pipe"] })
  let stderr = ""
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
      const match = /API\s+(http:\/\/\S+)\/api/.exec(stderr)
      if (match) resolve(match[1]!)
    })
    child.once("exit", (code) => reject(new Error(`toolbelt serve exited (${code}): ${stderr}`)))
  })
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  return {
    url,
    pid: child.pid!,
    async stop() {
      child.kill("SIGTERM")
      await exited
    },
  }
}
