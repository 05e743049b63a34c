import * as Message from "./messages.ts"

/**
 * The system's refusal of a value the tool was given, which is the input's fault, not the tool's: it
 * goes back to the model as invalid input, said in words, rather than being logged as a defect that
 * quotes the whole value. Undefined for any other error.
 * 1. A NUL byte in a path or a spawn argument (Node checks this before it touches the system).
 * 2. A path too long for the system (ENAMETOOLONG, from any fs call).
 * 3. Program arguments too long to start it with (E2BIG, from spawn).
 */
export function inputRefusal(error: unknown, tool: string): string | undefined {
  const { code, message, path } = (error ?? {}) as { code?: unknown; message?: unknown; path?: unknown }
  if (
    (code === "ERR_INVALID_ARG_VALUE" || code === "ERR_INVALID_ARG_TYPE") &&
    typeof message === "string" &&
    message.includes("without null bytes")
  ) {
    const received = /Received '([\s\S]*)'$/.exec(message)?.[1]
    return Message.nulByte(tool, received?.replace(/\\x00/g, "\u0000"))
  }
  if (code === "ENAMETOOLONG")
    return Message.pathTooLong(tool, typeof path === "string" ? path.length : undefined)
  if (code === "E2BIG") return Message.argumentsTooLong(tool)
  return undefined
}
