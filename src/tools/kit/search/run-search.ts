import { FetchError, rootMessage } from "../../../platform/net/errors.ts"
import { asSentence } from "../../../platform/text/sentence.ts"
import * as Tool from "../../../runtime/tool/index.ts"
import { services } from "../../../runtime/tool/services.ts"
import type { ProviderSettings, SearchCall } from "./provider.ts"
import { noteFailure, noteSuccess, unreachableReason } from "./reachability.ts"
import type { Resolved } from "./settings.ts"

type Settings = (
  config: Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string | undefined>>,
) => Resolved

/**
 * A search tool's `available`: offered when its provider is configured and was not found unreachable a
 * moment ago; otherwise not offered, with the reason `toolbelt tools` shows.
 */
export function offeredWhenConfigured(settingsOf: Settings): (env: Tool.Availability) => Tool.Offer {
  return (env) => {
    const { config, env: vars } = services({ extra: env.extra ?? {} })
    const settings = settingsOf(config, vars)
    if ("reason" in settings) return { reason: settings.reason }
    const down = unreachableReason(settings)
    return down ? { reason: down } : true
  }
}

/** The configured provider for a call, or a ToolFailure saying what to configure. */
export function configuredProvider(settingsOf: Settings, ctx: Tool.Context): ProviderSettings {
  const { config, env } = services(ctx)
  const settings = settingsOf(config, env)
  if ("reason" in settings) throw new Tool.ToolFailure(`Search is not available: ${settings.reason}.`)
  return settings
}

/**
 * Runs one search against a provider within its timeout (25 s by default) and the call's abort.
 * A provider that could not be reached at all is remembered, so the tool is not offered for a few
 * minutes; one that answered is reachable again. Errors become ToolFailures that say what to do.
 */
export async function runSearch<T>({
  settings,
  ctx,
  label,
  work,
}: {
  settings: ProviderSettings
  ctx: Tool.Context
  label: string
  work: (call: SearchCall) => Promise<T>
}): Promise<T> {
  const { env, callRemoteTool } = services(ctx)
  const timeout = AbortSignal.timeout(settings.timeoutMs)
  const signal = AbortSignal.any([ctx.abort, timeout])
  try {
    const answer = await work({ settings, signal, env, sessionID: ctx.sessionID, callRemoteTool })
    noteSuccess(settings)
    return answer
  } catch (error) {
    if (ctx.abort.aborted) throw error
    if (timeout.aborted)
      throw new Tool.ToolFailure(
        `${label} timed out after ${+(settings.timeoutMs / 1000).toFixed(1)} s. Try again, or a simpler query.`,
      )
    if (Tool.isToolFailure(error)) throw error
    if (noteFailure(settings, error))
      throw new Tool.ToolFailure(
        `Could not reach the ${settings.provider} search provider at ${settings.url}: ${rootMessage(error)}. Check the network, a proxy (HTTPS_PROXY) or the provider's URL; the tool is not offered for the next few minutes.`,
      )
    if (error instanceof FetchError) throw new Tool.ToolFailure(error.message)
    throw new Tool.ToolFailure(
      `${label} failed: ${asSentence(rootMessage(error))} Try again; if it fails again, check the ${settings.provider} search provider's settings.`,
    )
  }
}
