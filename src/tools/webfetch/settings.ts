import type { AddressPolicy } from "../../platform/net/address-policy.ts"
import * as Tool from "../../runtime/tool/index.ts"

/**
 * The `webfetch` section of the config: which non-public addresses webfetch may reach.
 * `{"allow_private": true}` opens loopback, private, link-local, unique-local and CGNAT addresses;
 * `{"allow_hosts": ["intranet.example.com", "*.corp.example.com", "10.1.0.0/16"]}` opens those hosts
 * (or address ranges) only. A value of the wrong shape is a ToolFailure naming the setting.
 */
export function addressPolicy(config: Readonly<Record<string, unknown>>): AddressPolicy {
  const section = config.webfetch
  if (section === undefined || section === null) return {}
  if (typeof section !== "object" || Array.isArray(section))
    throw invalid(`"webfetch" must be an object, e.g. {"allow_private": true}`)
  const { allow_private: allowPrivate, allow_hosts: allowHosts } = section as Record<string, unknown>
  if (allowPrivate !== undefined && typeof allowPrivate !== "boolean")
    throw invalid(`"webfetch.allow_private" must be true or false`)
  if (
    allowHosts !== undefined &&
    (!Array.isArray(allowHosts) || allowHosts.some((host) => typeof host !== "string"))
  )
    throw invalid(`"webfetch.allow_hosts" must be a list of host names, "*.suffix" patterns or IP ranges`)
  return {
    ...(allowPrivate !== undefined ? { allowPrivate } : {}),
    ...(allowHosts !== undefined ? { allowHosts: allowHosts as string[] } : {}),
  }
}

function invalid(what: string): Tool.ToolFailure {
  return new Tool.ToolFailure(`Invalid config: ${what}. Fix it in toolbelt.json.`)
}
