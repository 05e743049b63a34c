// Gemini's generateContent API as a loopback stand-in: the first turn streams a thought and a function
// call with its thoughtSignature; every later request must send that function call back with the same
// signature (not missing, not the SDK's skip sentinel), or it is refused as Gemini refuses it.
import { type Answer, type Received, sse } from "./loopback.ts"

export const THOUGHT = "The user wants the notes: read notes.txt."
export const THOUGHT_SIGNATURE = "CiQB0e2Kb3replay+gemini+thought+signature=="
export const CALL_ID = "fc_01replay"

/**
 * The stand-in's answer: a request with no model turn yet gets a thought and a call of `tool` with
 * `args`; any other is checked, then answered with text.
 */
export function googleAnswer(tool: string, args: unknown): (request: Received) => Answer {
  return ({ body }) => {
    const model = (body.contents as any[]).filter((content) => content.role === "model")
    if (!model.length) return { events: callEvents(tool, args) }
    const calls = model.flatMap((content) => content.parts.filter((part: any) => part.functionCall))
    const unsigned = calls.find((part: any) => part.thoughtSignature !== THOUGHT_SIGNATURE)
    if (unsigned) {
      return {
        status: 400,
        body: {
          error: {
            code: 400,
            message: `Function call is missing a thought_signature in functionCall parts (function call \`${unsigned.functionCall.name}\`, sent ${JSON.stringify(unsigned.thoughtSignature ?? null)}). See https://ai.google.dev/gemini-api/docs/thought-signatures.`,
            status: "INVALID_ARGUMENT",
          },
        },
      }
    }
    return { events: textEvents("The notes say to remember the milk.") }
  }
}

const usage = { promptTokenCount: 20, candidatesTokenCount: 30, totalTokenCount: 50 }

function callEvents(tool: string, args: unknown): string[] {
  return [
    sse({ candidates: [{ content: { role: "model", parts: [{ text: THOUGHT, thought: true }] } }] }),
    sse({
      candidates: [
        {
          content: {
            role: "model",
            parts: [{ functionCall: { id: CALL_ID, name: tool, args }, thoughtSignature: THOUGHT_SIGNATURE }],
          },
          finishReason: "STOP",
        },
      ],
      usageMetadata: usage,
    }),
  ]
}

function textEvents(text: string): string[] {
  return [
    sse({
      candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP" }],
      usageMetadata: usage,
    }),
  ]
}
