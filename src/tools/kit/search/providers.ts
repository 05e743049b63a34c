import { brave } from "./brave.ts"
import { exa } from "./exa.ts"
import { parallel } from "./parallel.ts"
import type { ProviderName, SearchProvider } from "./provider.ts"
import { searxng } from "./searxng.ts"
import { tavily } from "./tavily.ts"

/** Every provider, by the name the config uses. */
export const providers: Record<ProviderName, SearchProvider> = { exa, parallel, tavily, brave, searxng }
