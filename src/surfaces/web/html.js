// The UI library, bound once: preact renders, htm turns tagged templates into its elements (no build).
import htm from "htm"
import { h } from "preact"

export const html = htm.bind(h)
export { render } from "preact"
export { useEffect, useMemo, useRef, useState } from "preact/hooks"
