/**
 * The most pixels an attached image may decode to: 40 megapixels is ~160 MB as RGBA in whatever
 * decodes it next (the model's client, a provider's resizer). Cameras' photos are 12 to 50.
 */
export const MAX_IMAGE_PIXELS = 40_000_000

/** An image's size in pixels, as its header declares it. */
export interface ImageSize {
  readonly width: number
  readonly height: number
}

/**
 * The width and height a PNG, GIF, JPEG or WebP declares in its header (read without decoding it);
 * undefined for another format or a header cut short. A small file can declare a huge image: a PNG
 * of one colour compresses a thousandfold.
 */
export function imageSize(bytes: Uint8Array): ImageSize | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const ascii = (start: number, length: number) =>
    String.fromCharCode(...bytes.subarray(start, start + length))
  if (bytes.length >= 24 && ascii(1, 3) === "PNG" && ascii(12, 4) === "IHDR")
    return { width: view.getUint32(16), height: view.getUint32(20) }
  if (bytes.length >= 10 && ascii(0, 4) === "GIF8")
    return { width: view.getUint16(6, true), height: view.getUint16(8, true) }
  if (bytes.length >= 30 && ascii(0, 4) === "RIFF" && ascii(8, 4) === "WEBP") return webpSize(bytes, view)
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) return jpegSize(bytes, view)
  return undefined
}

function webpSize(bytes: Uint8Array, view: DataView): ImageSize | undefined {
  const chunk = String.fromCharCode(...bytes.subarray(12, 16))
  if (chunk === "VP8X") return { width: 1 + uint24(bytes, 24), height: 1 + uint24(bytes, 27) }
  if (chunk === "VP8 ")
    return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff }
  if (chunk === "VP8L") {
    const bits = view.getUint32(21, true)
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 }
  }
  return undefined
}

// A JPEG's size is in its start-of-frame segment (SOF0 to SOF15, not DHT, JPG or DAC), after any others.
function jpegSize(bytes: Uint8Array, view: DataView): ImageSize | undefined {
  let offset = 2
  while (offset + 9 <= bytes.length) {
    if (bytes[offset] !== 0xff) return undefined
    const marker = bytes[offset + 1]!
    if (marker === 0xff) {
      offset++
      continue
    }
    const length = view.getUint16(offset + 2)
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { width: view.getUint16(offset + 7), height: view.getUint16(offset + 5) }
    offset += 2 + length
  }
  return undefined
}

function uint24(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16)
}
