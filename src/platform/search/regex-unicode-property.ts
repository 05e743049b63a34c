// Rust Unicode class names (`\p{Greek}`, `\p{gc=Lu}`, ...) resolved to the JavaScript property names.

/** Maps a Rust Unicode class name (loose matching) to a JavaScript property expression. */
export function unicodeProperty(raw: string): { name: string; negated: boolean } | undefined {
  let negated = false
  let key: string | undefined
  let value = raw.trim()
  const separator = /(!=|=|:)/.exec(value)
  if (separator) {
    key = value.slice(0, separator.index).trim()
    negated = separator[0] === "!="
    value = value.slice(separator.index + separator[0].length).trim()
  }
  const words = value.split(/[\s_-]+/).filter(Boolean)
  const cap = (word: string) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase()
  const variants = [value, words.map(cap).join("_"), words.map(cap).join(""), value.toUpperCase(), cap(value)]
  const keys: string[] = []
  if (key === undefined) keys.push("", "Script_Extensions=", "General_Category=")
  else {
    const normal = key.toLowerCase().replace(/[\s_-]/g, "")
    if (normal === "sc" || normal === "script") keys.push("Script=")
    else if (normal === "scx" || normal === "scriptextensions") keys.push("Script_Extensions=")
    else if (normal === "gc" || normal === "generalcategory") keys.push("General_Category=")
    else return undefined
  }
  for (const prefix of keys) {
    for (const variant of variants) {
      if (variant === "" || !/^[A-Za-z0-9_]+$/.test(variant)) continue
      const name = prefix + variant
      try {
        new RegExp(`\\p{${name}}`, "v")
        return { name, negated }
      } catch {
        // Not a property JavaScript knows under this spelling: try the next.
      }
    }
  }
  return undefined
}
