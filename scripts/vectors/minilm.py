"""all-MiniLM-L6-v2 in numpy, from its tokenizer.json and model.safetensors: a text's vector
as sentence-transformers computes it (BERT, mean pooling over the attention mask,
unit length). Slow (about 20 ms a sentence on two cores) but needs no torch."""
import math
import numpy as np
from safetensors.numpy import load_file
from scipy.special import erf
from tokenizers import Tokenizer

def mean_pooled(hidden, mask):
    """Sentence vectors as sentence-transformers pools them: the mean of the last hidden
    states over the attention mask, unit length."""
    m = mask[..., None].astype(np.float32)
    v = (hidden * m).sum(1) / np.maximum(m.sum(1), 1e-9)
    return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)


class MiniLM:
    def __init__(self, folder):
        self.w = load_file(f"{folder}/model.safetensors")
        self.tok = Tokenizer.from_file(f"{folder}/tokenizer.json")
        self.tok.no_padding(); self.tok.enable_truncation(256)
        k = [x for x in self.w if x.endswith("word_embeddings.weight")][0]
        self.prefix = k[: -len("embeddings.word_embeddings.weight")]
    def p(self, name):
        return self.w[self.prefix + name]
    @staticmethod
    def ln(x, g, b, eps=1e-12):
        m = x.mean(-1, keepdims=True); v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / np.sqrt(v + eps) * g + b
    def hidden(self, ids, mask):
        """ids, mask: (B, T) int arrays -> (B, T, 384) last hidden states."""
        B, T = ids.shape
        x = self.p("embeddings.word_embeddings.weight")[ids] + self.p("embeddings.position_embeddings.weight")[:T][None] \
            + self.p("embeddings.token_type_embeddings.weight")[0][None, None]
        x = self.ln(x, self.p("embeddings.LayerNorm.weight"), self.p("embeddings.LayerNorm.bias"))
        bias = (1.0 - mask[:, None, None, :].astype(np.float32)) * -1e9
        H, D = 12, 32
        for l in range(6):
            a = f"encoder.layer.{l}."
            def lin(z, n): return z @ self.p(a + n + ".weight").T + self.p(a + n + ".bias")
            q = lin(x, "attention.self.query").reshape(B, T, H, D).transpose(0, 2, 1, 3)
            k = lin(x, "attention.self.key").reshape(B, T, H, D).transpose(0, 2, 1, 3)
            v = lin(x, "attention.self.value").reshape(B, T, H, D).transpose(0, 2, 1, 3)
            s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(D) + bias
            s = np.exp(s - s.max(-1, keepdims=True)); s /= s.sum(-1, keepdims=True)
            c = (s @ v).transpose(0, 2, 1, 3).reshape(B, T, H * D)
            x = self.ln(lin(c, "attention.output.dense") + x, self.p(a + "attention.output.LayerNorm.weight"), self.p(a + "attention.output.LayerNorm.bias"))
            h = lin(x, "intermediate.dense")
            h = 0.5 * h * (1.0 + erf(h / math.sqrt(2)))
            x = self.ln(lin(h, "output.dense") + x, self.p(a + "output.LayerNorm.weight"), self.p(a + "output.LayerNorm.bias"))
        return x
    def encode_ids(self, batch_ids):
        T = max(len(i) for i in batch_ids)
        ids = np.zeros((len(batch_ids), T), np.int64); mask = np.zeros((len(batch_ids), T), np.int64)
        for r, i in enumerate(batch_ids):
            ids[r, :len(i)] = i; mask[r, :len(i)] = 1
        return mean_pooled(self.hidden(ids, mask), mask)
    def encode(self, sentences, batch=64):
        enc = [self.tok.encode(s).ids for s in sentences]
        order = sorted(range(len(enc)), key=lambda i: len(enc[i]))
        out = np.zeros((len(enc), 384), np.float32)
        for s in range(0, len(order), batch):
            idx = order[s:s + batch]
            out[idx] = self.encode_ids([enc[i] for i in idx])
        return out

    def encode_spans(self, sentence, spans):
        """The meaning of each (start, end) byte span of `sentence` in its context, as
        components/sentence-model pools it: the mean of the last hidden states of the
        tokens within the span, unit length (None where the span holds no token)."""
        enc = self.tok.encode(sentence)
        ids = np.array([enc.ids], np.int64)
        states = self.hidden(ids, np.ones_like(ids))[0]
        # The Python binding gives character offsets; the spans are bytes.
        byte_at = [0]
        for ch in sentence:
            byte_at.append(byte_at[-1] + len(ch.encode()))
        out = []
        for start, end in spans:
            within = [t for t, (a, b) in enumerate(enc.offsets) if a < b and start <= byte_at[a] and byte_at[b] <= end]
            if not within:
                out.append(None)
                continue
            v = states[within].mean(0)
            out.append(v / max(np.linalg.norm(v), 1e-12))
        return out
