// A config file's text to its value: JSON with comments (`.json`, `.jsonc`) or TOML (`.toml`, opencode's
// `.opencode/config.toml`). A syntax error names the file, line and column, and what to do.

import { type ParseError, parse, printParseErrorCode } from "jsonc-parser"
import { parse as parseToml, TomlError } from "smol-toml"
import { ConfigError } from "./config-error.ts"

/**
 * Parses the text of `file`, by its extension: TOML for `.toml`, JSON with comments and trailing commas
 * otherwise. The top level must be an object (a TOML document always is). A syntax error is a
 * `ConfigError` that reads `Invalid config file <file>:<line>:<column>: <what>. Fix the <format> ...`.
 */
export function parseConfigText(text: string, file: string): Record<string, unknown> {
  const value = file.endsWith(".toml") ? toml(text, file) : json(text, file)
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ConfigError(`Invalid config file ${file}: the top level must be an object.`)
  }
  return value as Record<string, unknown>
}

function json(text: string, file: string): unknown {
  const errors: ParseError[] = []
  const value = parse(text, errors, { allowTrailingComma: true, disallowComments: false })
  const first = errors[0]
  if (!first) return value
  const { line, column } = position(text, first.offset)
  throw new ConfigError(
    `Invalid config file ${file}:${line}:${column}: ${printParseErrorCode(first.error)}. Fix the JSON there (comments and trailing commas are allowed).`,
  )
}

function toml(text: string, file: string): unknown {
  try {
    // A `__proto__` or `constructor` key is refused rather than kept (it would reach object prototypes
    // when files merge) or dropped (a rule that vanished without a word).
    return parseToml(text, { unsafeKeyBehaviour: "throw" })
  } catch (error) {
    if (!(error instanceof TomlError)) throw error
    // smol-toml's message is "Invalid TOML document: <what>" and then a code block; keep the what.
    const said = error.message.split("\n")[0]!.replace(/^Invalid TOML document:\s*/, "")
    const what = said.includes("unsafe property")
      ? "a key named __proto__ or constructor is not allowed"
      : said
    throw new ConfigError(
      `Invalid config file ${file}:${error.line}:${error.column}: ${what}. Fix the TOML there (strings in double quotes, e.g. my_tool = "ask"; a key with spaces or * in quotes too, e.g. "rm *" = "deny").`,
    )
  }
}

function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split("\n")
  return { line: before.length, column: before.at(-1)!.length + 1 }
}
