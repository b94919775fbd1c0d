"""The sentence model of a folder, for the judges: all-mpnet-base-v2 (mpnet.py) where
its config.json says MPNet, else all-MiniLM-L6-v2 (minilm.py)."""
import json
from minilm import MiniLM
from mpnet import MPNet


def load(folder):
    kind = json.load(open(f"{folder}/config.json")).get("model_type")
    return MPNet(folder) if kind == "mpnet" else MiniLM(folder)
