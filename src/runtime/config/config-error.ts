// The error of a config that cannot be used: which file or key, what is wrong, and what it takes.

export class ConfigError extends Error {
  override readonly name = "ConfigError"
}
