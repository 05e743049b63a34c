/**
 * A value built on its first use and kept: a tool's parameters schema, built when the tool is first
 * initialised (a call of it, a listing) rather than when its module is evaluated. Every start of the
 * command line evaluates every tool's module; building all their Zod schemas then was a tenth of
 * `toolbelt call read`'s start (bench/startup.bench.ts), for one tool's schema that call needs.
 */
export function lazy<T>(build: () => T): () => T {
  let built: { value: T } | undefined
  return () => {
    built ??= { value: build() }
    return built.value
  }
}
