// Reads a server-sent event stream frame by frame (the text between blank lines), for the benches'
// subscribers. Runs in the background; a stream that ends or fails just stops.
//
// Each frame comes with the time (Date.now()) its chunk was read: every frame of one chunk arrived
// together, so a frame's latency does not include the time spent decoding the frames before it.
export function readFrames(body: unknown, onFrame: (frame: string, readAt: number) => void): void {
  void (async () => {
    const decoder = new TextDecoder()
    let buffer = ""
    for await (const chunk of body as AsyncIterable<Uint8Array>) {
      const readAt = Date.now()
      buffer += decoder.decode(chunk, { stream: true })
      let start = 0
      let end = buffer.indexOf("\n\n")
      while (end >= 0) {
        onFrame(buffer.slice(start, end), readAt)
        start = end + 2
        end = buffer.indexOf("\n\n", start)
      }
      buffer = buffer.slice(start)
    }
  })().catch(() => {})
}
