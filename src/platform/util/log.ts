/** A minimal leveled logger to stderr (stdout belongs to command output and the MCP protocol). */
export type Level = "debug" | "info" | "warn" | "error"

const ORDER: Record<Level, number> = { debug: 0, info: 1, warn: 2, error: 3 }

function threshold(): number {
  const level = process.env.TOOLBELT_LOG as Level | undefined
  return level && level in ORDER ? ORDER[level] : ORDER.warn
}

export interface Logger {
  debug(message: string, data?: Record<string, unknown>): void
  info(message: string, data?: Record<string, unknown>): void
  warn(message: string, data?: Record<string, unknown>): void
  error(message: string, data?: Record<string, unknown>): void
}

export function logger(scope: string): Logger {
  const write = (level: Level) => (message: string, data?: Record<string, unknown>) => {
    if (ORDER[level] < threshold()) return
    const extra = data ? ` ${JSON.stringify(data)}` : ""
    process.stderr.write(`[toolbelt:${scope}] ${level} ${message}${extra}\n`)
  }
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") }
}
