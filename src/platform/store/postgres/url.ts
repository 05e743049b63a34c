/**
 * Store URLs: which strings name a PostgreSQL store, how one is shown (never with its password), and
 * the connection settings the worker hands the driver, TLS included. The driver (`postgres`) reads
 * `sslmode` itself but not libpq's certificate parameters, and would send any query parameter it does
 * not know to the server as a setting; so the TLS ones are taken out here and turned into Node's TLS
 * options (files read once, at open).
 */
import { readFileSync } from "node:fs"
import { asSentence } from "../../text/sentence.ts"

const SCHEME = /^postgres(ql)?:\/\//i

/** Whether `s` names a PostgreSQL store (`postgres://` or `postgresql://`), not a SQLite path. */
export function isStoreUrl(s: string): boolean {
  return SCHEME.test(s.trim())
}

/** The URL with its password replaced by `***` (for every message and log line about the store). */
export function redactStoreUrl(url: string): string {
  const trimmed = url.trim()
  try {
    const parsed = new URL(trimmed)
    if (parsed.password) parsed.password = "***"
    for (const key of [...parsed.searchParams.keys()]) {
      if (/^(password|sslpassword)$/i.test(key)) parsed.searchParams.set(key, "***")
    }
    return parsed.toString()
  } catch {
    // Not a URL the parser takes: blank out anything between "://user:" and "@".
    return trimmed.replace(/(:\/\/[^:/@]*:)[^@]*@/, "$1***@")
  }
}

/** Node TLS options for the driver's `ssl` (plain data: it crosses to the worker). */
export type TlsSetting =
  | false
  | "prefer"
  | "require"
  | {
      readonly rejectUnauthorized: boolean
      readonly ca?: string
      readonly cert?: string
      readonly key?: string
      readonly passphrase?: string
      /** verify-ca: the chain is checked, the host name is not. */
      readonly skipHostCheck?: boolean
    }

/** What the worker connects with. */
export interface ConnectionSettings {
  /** The URL without the TLS parameters taken out (password kept: the driver needs it). */
  readonly url: string
  readonly ssl: TlsSetting
  /** The URL as shown in messages. */
  readonly redacted: string
  /** The password, so that a driver message that ever quoted it can be cleaned. */
  readonly secret: string
}

const TLS_PARAMS = ["sslmode", "sslrootcert", "sslcert", "sslkey", "sslpassword"] as const

/**
 * Reads a store URL. `sslmode` as libpq takes it: `disable`; `allow`/`prefer` (TLS when the server
 * offers it, unchecked); `require` (TLS, unchecked, unless `sslrootcert` is given: then like
 * `verify-ca`); `verify-ca` (the chain against `sslrootcert`); `verify-full` (chain and host name,
 * against `sslrootcert` or the system's CAs). `sslrootcert=system` means the system's CAs.
 * `sslcert`/`sslkey`/`sslpassword` give a client certificate.
 */
export function connectionSettings(url: string): ConnectionSettings {
  const trimmed = url.trim()
  const redacted = redactStoreUrl(trimmed)
  let parsed: URL
  try {
    parsed = new URL(trimmed)
  } catch {
    throw new Error(
      `The store URL ${redacted} is not a valid URL; expected postgres://user:password@host:port/database.`,
    )
  }
  if (!SCHEME.test(trimmed))
    throw new Error(
      `The store URL ${redacted} is not a postgres:// URL. Give one of the form postgres://user:password@host:port/database.`,
    )
  const param = Object.fromEntries(
    TLS_PARAMS.map((name) => [name, parsed.searchParams.get(name) ?? undefined]),
  )
  for (const name of TLS_PARAMS) parsed.searchParams.delete(name)
  const read = (what: string, path: string | undefined): string | undefined => {
    if (path === undefined || path === "system") return undefined
    try {
      return readFileSync(path, "utf8")
    } catch (error) {
      throw new Error(
        `Cannot read ${what} ${path} named by the store URL ${redacted}: ${asSentence((error as Error).message)}`,
      )
    }
  }
  const client = {
    ...(param.sslcert ? { cert: read("sslcert", param.sslcert)! } : {}),
    ...(param.sslkey ? { key: read("sslkey", param.sslkey)! } : {}),
    ...(param.sslpassword ? { passphrase: param.sslpassword } : {}),
  }
  const ca = read("sslrootcert", param.sslrootcert)
  const mode = param.sslmode ?? (param.sslrootcert ? "verify-full" : undefined)
  let ssl: TlsSetting
  switch (mode) {
    case undefined:
    case "disable":
      ssl = Object.keys(client).length > 0 ? "require" : false
      break
    case "allow":
    case "prefer":
      ssl = "prefer"
      break
    case "require":
      ssl = ca === undefined ? "require" : { rejectUnauthorized: true, ca, skipHostCheck: true, ...client }
      break
    case "verify-ca":
      ssl = { rejectUnauthorized: true, ...(ca === undefined ? {} : { ca }), skipHostCheck: true, ...client }
      break
    case "verify-full":
      ssl = { rejectUnauthorized: true, ...(ca === undefined ? {} : { ca }), ...client }
      break
    default:
      throw new Error(
        `The store URL ${redacted} has sslmode=${mode}; expected disable, allow, prefer, require, verify-ca or verify-full.`,
      )
  }
  // A client certificate needs the options object; the server is still checked only as the mode says.
  if (typeof ssl === "string" && Object.keys(client).length > 0)
    ssl = { rejectUnauthorized: false, ...client }
  return { url: parsed.toString(), ssl, redacted, secret: decodeURIComponent(parsed.password) }
}
