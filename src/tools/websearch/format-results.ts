import type { SearchAnswer } from "../kit/search/provider.ts"

export const NO_RESULTS = "No search results found. Please try a different query."

/**
 * What the model reads of an answer: a provider's own text as it is, or its results as a numbered
 * list of title, URL and snippet (blank space in snippets collapsed).
 */
export function formatAnswer(answer: SearchAnswer): { output: string; results: number } {
  if ("text" in answer) {
    const text = answer.text.trim()
    return { output: text || NO_RESULTS, results: text ? 1 : 0 }
  }
  if (answer.hits.length === 0) return { output: NO_RESULTS, results: 0 }
  const output = answer.hits
    .map((hit, index) => {
      const lines = [`${index + 1}. ${oneLine(hit.title) || "(untitled)"}`]
      if (hit.url) lines.push(`   ${hit.url}`)
      const snippet = oneLine(hit.snippet)
      if (snippet) lines.push(`   ${snippet}`)
      return lines.join("\n")
    })
    .join("\n\n")
  return { output, results: answer.hits.length }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim()
}
