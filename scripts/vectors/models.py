"""The sentence model of a folder, for the judges: all-mpnet-base-v2 (mpnet.py) where
its config.json says MPNet, else all-MiniLM-L6-v2 (minilm.py).

`python models.py MODEL_DIR` checks a model against sentence-transformers' own example:
the cosines of its first three sentences with its last three are 0.2838, -0.0327, 0.8939
for all-MiniLM-L6-v2 and 0.192, -0.0478, 0.9101 for all-mpnet-base-v2 (the same from
transformers' MPNetModel and from sentence-transformers; vectors within 3e-7 of both)."""
import json, sys
import numpy as np
from minilm import MiniLM
from mpnet import MPNet


def load(folder):
    kind = json.load(open(f"{folder}/config.json")).get("model_type")
    return MPNet(folder) if kind == "mpnet" else MiniLM(folder)


if __name__ == "__main__":
    model = load(sys.argv[1])
    v = model.encode(["The cat sits outside", "A man is playing guitar", "The new movie is awesome",
                      "The dog plays in the garden", "A woman watches TV", "The new movie is so great"])
    print(np.round(np.diag(v[:3] @ v[3:].T), 4))
