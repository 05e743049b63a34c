// Reads a server-sent event stream frame by frame (the text between blank lines), for the benches'
// subscribers. Runs in the background; a stream that ends or fails just stops.
export function readFrames(body: unknown, onFrame: (frame: string) => void): void {
  void (async () => {
    const decoder = new TextDecoder()
    let buffer = ""
    for await (const chunk of body as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true })
      let end = buffer.indexOf("\n\n")
      while (end >= 0) {
        onFrame(buffer.slice(0, end))
        buffer = buffer.slice(end + 2)
        end = buffer.indexOf("\n\n")
      }
    }
  })().catch(() => {})
}
