import * as crypto from "node:crypto"

/**
 * SHA-256 of a string, base64url. Node's one-shot `crypto.hash` makes no Hash object per call (a
 * tenth of what an MCP read cost the loop guard); a runtime without it (older Bun) uses createHash.
 */
export function sha256Base64url(text: string): string {
  return typeof crypto.hash === "function"
    ? crypto.hash("sha256", text, "base64url")
    : crypto.createHash("sha256").update(text).digest("base64url")
}
