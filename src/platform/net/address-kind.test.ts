import { describe, expect, it } from "vitest"
import { addressKind, embeddedIPv4 } from "./address-kind.ts"
import { compilePolicy } from "./address-policy.ts"

describe("addressKind", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.10", "private"],
    ["169.254.169.254", "cloud metadata"],
    ["fd00:ec2::254", "cloud metadata"],
    ["100.100.100.200", "cloud metadata"],
    ["169.254.10.1", "link-local"],
    ["fe80::1", "link-local"],
    ["fc00::1", "unique-local"],
    ["fd12:3456::1", "unique-local"],
    ["100.64.0.1", "CGNAT"],
    ["100.127.255.255", "CGNAT"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["ff02::1", "multicast"],
    ["192.0.2.1", "reserved"],
    ["240.0.0.1", "reserved"],
    ["2001:db8::1", "reserved"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:a9fe:a9fe", "cloud metadata"],
    ["64:ff9b::10.0.0.1", "private"],
    ["2002:c0a8:0101::1", "private"],
    ["::127.0.0.1", "loopback"],
    ["not-an-address", "reserved"],
  ])("%s is %s", (address, kind) => {
    expect(addressKind(address)).toBe(kind)
  })

  it.each([
    "93.184.215.14",
    "8.8.8.8",
    "172.32.0.1",
    "100.128.0.1",
    "2606:4700:4700::1111",
    "::ffff:8.8.8.8",
  ])("%s is public", (address) => {
    expect(addressKind(address)).toBeUndefined()
  })

  it("reads the IPv4 address inside mapped, NAT64 and 6to4 addresses only", () => {
    expect(embeddedIPv4("::ffff:192.168.0.1")).toBe("192.168.0.1")
    expect(embeddedIPv4("2002:0a00:0001::")).toBe("10.0.0.1")
    expect(embeddedIPv4("2606:4700::1")).toBeUndefined()
    expect(embeddedIPv4("::1")).toBeUndefined()
  })
})

describe("compilePolicy", () => {
  it("refuses every non-public kind by default and allows public addresses", () => {
    const policy = compilePolicy()
    expect(policy.refusal("example.com", "93.184.215.14")).toBeUndefined()
    expect(policy.refusal("localhost", "127.0.0.1")).toBe("loopback")
    expect(policy.refusal("metadata.google.internal", "169.254.169.254")).toBe("cloud metadata")
  })

  it("allow_private opens private kinds but never metadata or reserved ranges", () => {
    const policy = compilePolicy({ allowPrivate: true })
    expect(policy.refusal("localhost", "::1")).toBeUndefined()
    expect(policy.refusal("nas", "192.168.1.5")).toBeUndefined()
    expect(policy.refusal("carrier", "100.64.1.1")).toBeUndefined()
    expect(policy.refusal("m", "169.254.169.254")).toBe("cloud metadata")
    expect(policy.refusal("doc", "192.0.2.1")).toBe("reserved")
  })

  it("allow_hosts opens names, *.suffixes, addresses and ranges, and only those", () => {
    const policy = compilePolicy({
      allowHosts: ["Intranet.Example.com.", "*.corp.example", "10.1.0.0/16", "::1", "169.254.169.254"],
    })
    expect(policy.refusal("intranet.example.com", "10.9.9.9")).toBeUndefined()
    expect(policy.refusal("wiki.corp.example", "192.168.0.2")).toBeUndefined()
    expect(policy.refusal("corp.example", "192.168.0.2")).toBe("private")
    expect(policy.refusal("anything", "10.1.200.3")).toBeUndefined()
    expect(policy.refusal("anything", "10.2.0.1")).toBe("private")
    expect(policy.refusal("localhost", "::1")).toBeUndefined()
    expect(policy.refusal("localhost", "127.0.0.1")).toBe("loopback")
    expect(policy.refusal("m", "169.254.169.254")).toBeUndefined()
  })

  it("keys differ by policy, not by the order of its hosts", () => {
    expect(compilePolicy({ allowHosts: ["a", "b"] }).key).toBe(compilePolicy({ allowHosts: ["b", "a"] }).key)
    expect(compilePolicy({ allowPrivate: true }).key).not.toBe(compilePolicy().key)
  })
})
