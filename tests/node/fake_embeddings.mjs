// A deterministic embedding function for the LangChain / LangGraph tests: one dimension per
// word of a small vocabulary (other words hash into the last four), counts normalised to
// unit length. Texts that share words are near; texts that share none are orthogonal.
import { Embeddings } from '@langchain/core/embeddings';

export const VOCAB = ['apple', 'banana', 'fruit', 'red', 'green', 'car', 'bike', 'vehicle', 'fast', 'cheap', 'coffee', 'tea'];
export const DIM = VOCAB.length + 4;

export function embed(text) {
  const v = new Array(DIM).fill(0);
  for (const raw of text.toLowerCase().split(/[^a-z]+/)) {
    if (!raw) continue;
    const word = raw.endsWith('s') && VOCAB.includes(raw.slice(0, -1)) ? raw.slice(0, -1) : raw;
    const i = VOCAB.indexOf(word);
    if (i >= 0) {
      v[i] += 1;
    } else {
      let h = 2166136261;
      for (const ch of word) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
      v[VOCAB.length + (h % 4)] += 0.25;
    }
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

export class FakeEmbeddings extends Embeddings {
  constructor() { super({}); }
  async embedDocuments(texts) { return texts.map(embed); }
  async embedQuery(text) { return embed(text); }
}
