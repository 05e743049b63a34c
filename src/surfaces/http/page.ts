// The web page: its files from the package (src/surfaces/web, or dist/surfaces/web once built) and the
// UI library's from node_modules, each by a fixed name; no CDN, no build step.
import { createHash } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, extname, join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Hono } from "hono"
import type { Access } from "./access.ts"

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
}

/** The library files the page imports (its import map names them), by the name it asks for. */
const VENDOR: Record<string, readonly [pkg: string, file: string]> = {
  "preact.mjs": ["preact", "dist/preact.mjs"],
  "hooks.mjs": ["preact", "hooks/dist/hooks.mjs"],
  "htm.mjs": ["htm", "dist/htm.mjs"],
}

interface Asset {
  readonly body: Uint8Array
  readonly type: string
}

/**
 * Serves the page.
 * 1. `/`: index.html. With `?login=<code>` (the link printed at start), a valid code sets the
 *    page's cookie and redirects to `/`, so the code leaves the address bar and the history.
 * 2. `/assets/<file>`: the page's own files; `/vendor/<file>`: preact, its hooks and htm. Only files
 *    that exist at start are served, by exact name (no path reaches outside those folders).
 * 3. Headers that keep the page to itself: a content security policy allowing only its own files
 *    (and its import map, by hash), no framing (an approve button must not be clickjacked), no
 *    referrer (the login code must not leak), no sniffing, no caching.
 */
export function mountPage(app: Hono, access: Access): void {
  const web = fileURLToPath(new URL("../web/", import.meta.url))
  const assets = new Map<string, Asset>()
  for (const name of readdirSync(web)) {
    if (name === "index.html" || !TYPES[extname(name)]) continue
    assets.set(name, { body: readFileSync(join(web, name)), type: TYPES[extname(name)]! })
  }
  const vendor = new Map<string, Asset>()
  for (const [name, [pkg, file]] of Object.entries(VENDOR)) {
    vendor.set(name, { body: readFileSync(join(packageRoot(pkg), file)), type: TYPES[".mjs"]! })
  }
  const html = readFileSync(join(web, "index.html"), "utf8")
  const headers = pageHeaders(html)

  // 1. The page.
  app.get("/", (context) => {
    const code = new URL(context.req.url).searchParams.get("login")
    if (code !== null) {
      const cookie = access.login(code)
      const redirect = new Headers({
        location: "/",
        "cache-control": "no-store",
        "referrer-policy": "no-referrer",
      })
      if (cookie) redirect.set("set-cookie", cookie)
      return new Response(null, { status: 303, headers: redirect })
    }
    return new Response(html, { headers: { ...headers, "content-type": TYPES[".html"]! } })
  })
  // 2. Its files.
  const serve =
    (files: Map<string, Asset>) => (context: { req: { param(name: string): string | undefined } }) => {
      const asset = files.get(context.req.param("file") ?? "")
      if (!asset) return new Response("Not found", { status: 404, headers: { "content-type": "text/plain" } })
      return new Response(asset.body as Uint8Array<ArrayBuffer>, {
        headers: { ...headers, "content-type": asset.type },
      })
    }
  app.get("/assets/:file", serve(assets))
  app.get("/vendor/:file", serve(vendor))
}

/** The folder of an installed package: up from its entry point to its package.json. */
function packageRoot(name: string): string {
  let dir = dirname(createRequire(import.meta.url).resolve(name))
  for (;;) {
    try {
      if ((JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string }).name === name)
        return dir
    } catch {
      // No package.json here: keep going up.
    }
    const parent = dirname(dir)
    if (parent === dir)
      throw new Error(`Cannot find the package ${name} (npm install puts it in node_modules).`)
    dir = parent
  }
}

/** 3. The headers of every file of the page. */
function pageHeaders(html: string): Record<string, string> {
  const inline = [...html.matchAll(/<script type="importmap">([\s\S]*?)<\/script>/g)].map(
    (match) => `'sha256-${createHash("sha256").update(match[1]!).digest("base64")}'`,
  )
  const policy = [
    "default-src 'none'",
    `script-src 'self' ${inline.join(" ")}`.trim(),
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ")
  return {
    "content-security-policy": policy,
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-cache",
  }
}
