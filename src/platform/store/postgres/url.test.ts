import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { toPostgresPlaceholders } from "./placeholders.ts"
import { connectionSettings, isStoreUrl, redactStoreUrl } from "./url.ts"

const dir = mkdtempSync(join(tmpdir(), "toolbelt-pg-url-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("store URLs", () => {
  it("tells a PostgreSQL URL from a SQLite path", () => {
    expect(isStoreUrl("postgres://u@h/db")).toBe(true)
    expect(isStoreUrl(" POSTGRESQL://u@h/db")).toBe(true)
    expect(isStoreUrl("/data/toolbelt.db")).toBe(false)
    expect(isStoreUrl("sqlite://x")).toBe(false)
  })

  it("redacts the password, in the URL and in its query", () => {
    expect(redactStoreUrl("postgres://u:s3cr%40t@h:5432/db?sslmode=require")).toBe(
      "postgres://u:***@h:5432/db?sslmode=require",
    )
    expect(redactStoreUrl("postgres://u@h/db?password=s3cret")).toBe("postgres://u@h/db?password=***")
    expect(redactStoreUrl("postgres://u:p@ss@h/db")).not.toContain("p@ss")
    expect(redactStoreUrl("postgres://h/db")).toBe("postgres://h/db")
  })

  it("turns libpq's TLS parameters into the driver's settings, taking them out of the URL", () => {
    const ca = join(dir, "ca.pem")
    writeFileSync(ca, "CA PEM")
    const settings = (query: string) => connectionSettings(`postgres://u:pw@h/db?${query}`)
    expect(settings("").ssl).toBe(false)
    expect(settings("sslmode=disable").ssl).toBe(false)
    expect(settings("sslmode=prefer").ssl).toBe("prefer")
    expect(settings("sslmode=require").ssl).toBe("require")
    expect(settings(`sslmode=require&sslrootcert=${ca}`).ssl).toEqual({
      rejectUnauthorized: true,
      ca: "CA PEM",
      skipHostCheck: true,
    })
    expect(settings(`sslmode=verify-full&sslrootcert=${ca}`).ssl).toEqual({
      rejectUnauthorized: true,
      ca: "CA PEM",
    })
    expect(settings("sslmode=verify-full&sslrootcert=system").ssl).toEqual({ rejectUnauthorized: true })
    const kept = settings(`sslmode=verify-ca&sslrootcert=${ca}&application_name=x`)
    expect(kept.url).toBe("postgres://u:pw@h/db?application_name=x")
    expect(kept.redacted).toBe(`postgres://u:***@h/db?sslmode=verify-ca&sslrootcert=${ca}&application_name=x`)
    expect(kept.secret).toBe("pw")
  })

  it("says what is wrong with a bad TLS setting, without the password", () => {
    expect(() => connectionSettings("postgres://u:pw@h/db?sslmode=sometimes")).toThrow(
      /postgres:\/\/u:\*\*\*@h\/db.*sslmode=sometimes; expected disable, allow, prefer, require, verify-ca or verify-full/,
    )
    expect(() => connectionSettings("postgres://u:pw@h/db?sslrootcert=/nonexistent/ca.pem")).toThrow(
      /Cannot read sslrootcert \/nonexistent\/ca\.pem named by the store URL postgres:\/\/u:\*\*\*@h/,
    )
  })
})

describe("placeholders", () => {
  it("numbers ? in order, keeps ?N, and leaves literals, identifiers and comments alone", () => {
    expect(toPostgresPlaceholders("SELECT * FROM t WHERE a = ? AND b = ?")).toBe(
      "SELECT * FROM t WHERE a = $1 AND b = $2",
    )
    expect(toPostgresPlaceholders("WHERE (?1 IS NULL OR a = ?1) LIMIT ?3")).toBe(
      "WHERE ($1 IS NULL OR a = $1) LIMIT $3",
    )
    expect(toPostgresPlaceholders(`SELECT '?', 'it''s ?', "q?" -- ?\n, ? /* ? */`)).toBe(
      `SELECT '?', 'it''s ?', "q?" -- ?\n, $1 /* ? */`,
    )
  })
})
