"""all-mpnet-base-v2 in numpy, from its tokenizer.json, config.json and model.safetensors:
a text's vector as sentence-transformers computes it (MPNet, truncation at 384 tokens,
mean pooling over the attention mask, unit length). Needs no torch. Slow on two
cores: about 0.15 s for one short sentence alone, 30-60 ms a sentence in batches of
short ones, 2 s a sentence of 384 tokens.

MPNet is BERT-like with three differences that matter here: positions count from
padding_idx + 1 (RoBERTa style: 2, 3, ... for real tokens, 1 for padding), there are
no token types, and one relative position bias (T5-style buckets, bidirectional, from
encoder.relative_attention_bias) is computed once and added to every layer's scores.
The weights name the attention projections attention.attn.{q,k,v,o} and its norm
attention.LayerNorm; the pooler (pooler.dense) is in the file but not used."""
import json, math
import numpy as np
from safetensors.numpy import load_file
from scipy.special import erf
from tokenizers import Tokenizer
from minilm import mean_pooled

class MPNet:
    def __init__(self, folder):
        self.w = load_file(f"{folder}/model.safetensors")
        cfg = json.load(open(f"{folder}/config.json"))
        try:
            self.max_len = json.load(open(f"{folder}/sentence_bert_config.json"))["max_seq_length"]
        except (OSError, KeyError):
            self.max_len = 384
        # tokenizer.json itself asks for truncation at 128 and fixed padding to 128: undo both.
        self.tok = Tokenizer.from_file(f"{folder}/tokenizer.json")
        self.tok.no_padding(); self.tok.enable_truncation(self.max_len)
        k = [x for x in self.w if x.endswith("word_embeddings.weight")][0]
        self.prefix = k[: -len("embeddings.word_embeddings.weight")]
        self.pad = cfg.get("pad_token_id", 1)
        self.eps = cfg.get("layer_norm_eps", 1e-5)
        self.layers = cfg["num_hidden_layers"]; self.H = cfg["num_attention_heads"]
        self.dim = cfg["hidden_size"]; self.D = self.dim // self.H
        self.buckets = cfg.get("relative_attention_num_buckets", 32)
    def p(self, name):
        return self.w[self.prefix + name]
    def ln(self, x, g, b):
        m = x.mean(-1, keepdims=True); v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / np.sqrt(v + self.eps) * g + b
    def bucket(self, rel, max_distance=128):
        """T5's bidirectional bucket of relative positions (key - query), as MPNet computes
        it in float32 (torch): half the buckets for keys before the query, half after."""
        nb = self.buckets // 2
        n = -rel
        ret = (n < 0).astype(np.int64) * nb
        n = np.abs(n)
        exact = nb // 2
        f = np.maximum(n, 1).astype(np.float32)  # n < exact takes the other branch below
        large = exact + (np.log(f / np.float32(exact)) / np.float32(math.log(max_distance / exact))
                         * np.float32(nb - exact)).astype(np.int64)
        large = np.minimum(large, nb - 1)
        return ret + np.where(n < exact, n, large)
    def position_bias(self, T):
        """(H, T, T): the bias added to every layer's attention scores."""
        rel = np.arange(T)[None, :] - np.arange(T)[:, None]
        return self.p("encoder.relative_attention_bias.weight")[self.bucket(rel)].transpose(2, 0, 1)
    def hidden(self, ids, mask):
        """ids, mask: (B, T) int arrays, padding = pad id with mask 0 -> (B, T, 768) last hidden states."""
        B, T = ids.shape
        real = (ids != self.pad).astype(np.int64)
        pos = np.cumsum(real, 1) * real + self.pad
        x = self.p("embeddings.word_embeddings.weight")[ids] + self.p("embeddings.position_embeddings.weight")[pos]
        # (B * T, 768) rows: one matrix product per weight for the whole batch (a (B, T, 768)
        # operand would make numpy run one product per row of the batch).
        x = self.ln(x, self.p("embeddings.LayerNorm.weight"), self.p("embeddings.LayerNorm.bias")).reshape(B * T, -1)
        bias = self.position_bias(T)[None] + ((1.0 - mask[:, None, None, :].astype(np.float32)) * -1e9)
        H, D = self.H, self.D
        for l in range(self.layers):
            a = f"encoder.layer.{l}."
            def lin(z, n): return z @ self.p(a + n + ".weight").T + self.p(a + n + ".bias")
            q = lin(x, "attention.attn.q").reshape(B, T, H, D).transpose(0, 2, 1, 3)
            k = lin(x, "attention.attn.k").reshape(B, T, H, D).transpose(0, 2, 1, 3)
            v = lin(x, "attention.attn.v").reshape(B, T, H, D).transpose(0, 2, 1, 3)
            s = q @ k.transpose(0, 1, 3, 2) / np.float32(math.sqrt(D)) + bias
            s = np.exp(s - s.max(-1, keepdims=True)); s /= s.sum(-1, keepdims=True)
            c = (s @ v).transpose(0, 2, 1, 3).reshape(B * T, H * D)
            x = self.ln(lin(c, "attention.attn.o") + x, self.p(a + "attention.LayerNorm.weight"), self.p(a + "attention.LayerNorm.bias"))
            h = lin(x, "intermediate.dense")
            h = 0.5 * h * (1.0 + erf(h / np.float32(math.sqrt(2))))
            x = self.ln(lin(h, "output.dense") + x, self.p(a + "output.LayerNorm.weight"), self.p(a + "output.LayerNorm.bias"))
        return x.reshape(B, T, -1)
    def encode_ids(self, batch_ids):
        T = max(len(i) for i in batch_ids)
        ids = np.full((len(batch_ids), T), self.pad, np.int64); mask = np.zeros((len(batch_ids), T), np.int64)
        for r, i in enumerate(batch_ids):
            ids[r, :len(i)] = i; mask[r, :len(i)] = 1
        return mean_pooled(self.hidden(ids, mask), mask)
    def encode(self, sentences, batch=64):
        # sentence-transformers strips each text before tokenizing.
        enc = [self.tok.encode(str(s).strip()).ids for s in sentences]
        order = sorted(range(len(enc)), key=lambda i: len(enc[i]))
        out = np.zeros((len(enc), self.dim), np.float32)
        # Batches of similar lengths: at most `batch` rows, at most 8192 padded tokens, and
        # no row more than twice (+16) the length of the batch's shortest, so padding costs little.
        groups, g = [], []
        for i in order:
            n = len(enc[i])
            if g and (len(g) == batch or (len(g) + 1) * n > 8192 or n > 2 * len(enc[g[0]]) + 16):
                groups.append(g); g = []
            g.append(i)
        if g: groups.append(g)
        for idx in groups:
            out[idx] = self.encode_ids([enc[i] for i in idx])
        return out
