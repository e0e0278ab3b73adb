"""The local judge's numbers, computed independently with llama-cpp-python (another binding of llama.cpp, built
from source by scripts/test-models.sh) on the same GGUF: JSON on stdin, JSON on stdout.

Input: {"model": path, "n_ctx": int, "threads": int, "ops": [op, ...]}; each op is one of
  {"op": "render", "system": s, "user": u}
      the prompt in the GGUF's own chat template (tokenizer.chat_template, rendered by llama-cpp-python's
      Jinja2ChatFormatter, as its server does) and its tokens
  {"op": "next", "text": t} or {"op": "next", "system": s, "user": u, "text": t}
      the letters' probabilities after `t` (special tokens parsed), evaluated in one batch as a server does; with
      system and user, after the prompt as "render" gives it followed by `t`
  {"op": "softent", "system": s, "user": u, "max_tokens": n, "base": path}
      the game as "judge" plays it, then SoftEnt-Cali over its reply's tokens (the explanation kept, "\n[[" and the
      verdict letter): the mean entropy (nats) of the judge's next-token softmax at each position predicting one,
      minus the same from the foundation model `base`; prompt and reply evaluated in one batch
  {"op": "judge", "system": s, "user": u, "max_tokens": n}
      a greedy game as src/judges/llama-cpp plays it: the explanation until "[[", the end of generation or the
      budget; then "[[" (after a newline) and, at the verdict position, the probability of each letter: the
      softmax over the tokens whose text is A/B/C (optionally with "]" or "]]"), summed by letter
Only logits and tokens come from llama.cpp; the game's logic is written again here, not imported.
"""

import json
import re
import sys

import numpy as np
import llama_cpp
from llama_cpp import Llama
from llama_cpp.llama_chat_format import Jinja2ChatFormatter

VERDICT_RESERVE = 8  # src/judges/llama-cpp/verdict.ts


def main():
    req = json.load(sys.stdin)
    llm = Llama(
        model_path=req["model"],
        n_ctx=req["n_ctx"],
        n_threads=req["threads"],
        n_threads_batch=req["threads"],
        n_batch=512,
        verbose=False,
    )
    ref = Ref(llm)
    out = []
    for op in req["ops"]:
        if op["op"] == "render":
            text, tokens = ref.render(op["system"], op["user"])
            out.append({"text": text, "tokens": tokens})
        elif op["op"] == "next":
            head = ref.render(op["system"], op["user"])[0] if "user" in op else ""
            out.append(ref.next_letters(head + op["text"]))
        elif op["op"] == "judge":
            out.append(ref.judge(op["system"], op["user"], op["max_tokens"]))
        elif op["op"] == "softent":
            out.append(softent_cali(req, ref, op))
        else:
            raise ValueError(f"unknown op {op['op']!r}")
    json.dump(out, sys.stdout)


class Ref:
    def __init__(self, llm):
        self.llm = llm
        self.vocab = llama_cpp.llama_model_get_vocab(llm.model)
        self.n_vocab = llm.n_vocab()
        m = llm._model
        self.formatter = Jinja2ChatFormatter(
            template=llm.metadata["tokenizer.chat_template"],
            eos_token=m.token_get_text(m.token_eos()),
            bos_token=m.token_get_text(m.token_bos()),
        )
        opener = self.tok("[[")
        self.letters = {}
        for t in range(self.n_vocab):
            # a verdict token's own text is at most "A]]" with a marker of a leading space or a byte: skip the rest
            if len(m.token_get_text(t)) > 4:
                continue
            text = self.detok(opener + [t])
            if text.startswith("[[") and re.fullmatch(r"[ABC]\]{0,2}", text[2:]):
                self.letters[t] = text[2]

    def tok(self, text, special=False):
        return self.llm.tokenize(text.encode(), add_bos=False, special=special)

    def detok(self, tokens):
        return self.llm.detokenize(tokens).decode("utf-8", errors="replace")

    def render(self, system, user):
        messages = ([{"role": "system", "content": system}] if system else []) + [
            {"role": "user", "content": user}
        ]
        text = self.formatter(messages=messages).prompt
        # as llama-cpp-python's chat completion tokenizes it (a BOS only where the model asks for one)
        return text, self.llm.tokenize(text.encode(), add_bos=True, special=True)

    def logits(self):
        ptr = llama_cpp.llama_get_logits_ith(self.llm._ctx.ctx, -1)
        return np.ctypeslib.as_array(ptr, shape=(self.n_vocab,)).astype(np.float64)

    def letter_probs(self):
        z = self.logits()
        ids = list(self.letters)
        zl = z[ids]
        w = np.exp(zl - zl.max())
        probs = {"A": 0.0, "B": 0.0, "C": 0.0}
        for t, x in zip(ids, w):
            probs[self.letters[t]] += float(x)
        total = sum(probs.values())
        best = ids[int(np.argmax(zl))]
        return {k: v / total for k, v in probs.items()}, self.letters[best], best

    def next_letters(self, text):
        self.llm.reset()
        self.llm.eval(self.llm.tokenize(text.encode(), add_bos=True, special=True))
        probs, verdict, _ = self.letter_probs()
        return {"probs": probs, "verdict": verdict}

    def judge(self, system, user, max_tokens):
        llm = self.llm
        rendered, prompt = self.render(system, user)
        n_ctx = llm.n_ctx()
        if len(prompt) + VERDICT_RESERVE > n_ctx:
            return {"text": rendered, "prompt_tokens": len(prompt), "too_long": True}
        budget = max(0, min(max_tokens - VERDICT_RESERVE, n_ctx - len(prompt) - VERDICT_RESERVE))
        # evaluated in the judge's shapes (a 4-bit model's probabilities move by up to 0.02 between one batch and
        # token by token): the prompt in one batch, each generated token alone as the next one is asked for (the
        # last one sampled is not evaluated), then what the verdict position needs beyond that in one batch
        llm.reset()
        llm.eval(prompt)
        generated, cut = [], "budget"
        while len(generated) < budget:
            if generated:
                llm.eval(generated[-1:])
            t = int(np.argmax(self.logits()))
            if llama_cpp.llama_vocab_is_eog(self.vocab, t):
                cut = "eog"
                break
            generated.append(t)
            if "[[" in self.detok(generated[-16:]):
                cut = "verdict"
                break
        text = self.detok(generated)
        limit = text.index("[[") if cut == "verdict" else len(text)
        keep = len(generated)
        while keep > 0 and (
            len(self.detok(generated[:keep])) > limit or self.detok(generated[:keep]).endswith("[")
        ):
            keep -= 1
        explanation = self.detok(generated[:keep])
        opener = self.tok("\n[[" if explanation.strip() else "[[")
        held = [int(t) for t in llm.input_ids[: llm.n_tokens]]
        target = prompt + generated[:keep] + opener
        same = 0
        while same < min(len(held), len(target) - 1) and held[same] == target[same]:
            same += 1
        llm.n_tokens = same  # eval drops the cache after n_tokens
        llm.eval(target[same:])
        probs, verdict, verdict_token = self.letter_probs()
        return {
            "reply_tokens": generated[:keep] + opener + [int(verdict_token)],
            "prompt_ids": prompt,
            "text": rendered,
            "prompt_tokens": len(prompt),
            "explanation": explanation,
            "cut": cut,
            "probs": probs,
            "verdict": verdict,
        }


_scorers = {}


def scorer(req, path):
    """A Llama on `path` (for entropies), one per file."""
    if path not in _scorers:
        _scorers[path] = Llama(
            model_path=path,
            n_ctx=req["n_ctx"],
            n_threads=req["threads"],
            n_threads_batch=req["threads"],
            n_batch=512,
            verbose=False,
        )
    return _scorers[path]


def mean_entropy(llm, prompt, reply):
    # prompt and reply in one batch, logits asked at the positions that predict a reply token only (every other
    # position's would be a vocabulary's worth of output computed and copied for nothing)
    tokens = prompt + reply[:-1]
    first = len(prompt) - 1
    if len(tokens) > llm.n_batch:
        raise ValueError(f"{len(tokens)} tokens do not fit one batch of {llm.n_batch}")
    llm.reset()
    llm._ctx.kv_cache_seq_rm(-1, 0, -1)
    b = llm._batch.batch
    b.n_tokens = len(tokens)
    for i, t in enumerate(tokens):
        b.token[i], b.pos[i], b.n_seq_id[i], b.logits[i] = t, i, 1, i >= first
        b.seq_id[i][0] = 0
    llm._ctx.decode(llm._batch)
    z = np.stack(
        [
            np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm._ctx.ctx, i), shape=(llm.n_vocab(),))
            for i in range(first, len(tokens))
        ]
    ).astype(np.float64)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    s = e.sum(axis=1)
    return float(np.mean(np.log(s) - (e * z).sum(axis=1) / s))


def softent_cali(req, ref, op):
    g = ref.judge(op["system"], op["user"], op["max_tokens"])
    prompt, reply = g["prompt_ids"], g["reply_tokens"]
    judge = mean_entropy(scorer(req, req["model"]), prompt, reply)
    base = mean_entropy(scorer(req, op["base"]), prompt, reply)
    return {"verdict": g["verdict"], "judge": judge, "base": base, "cali": judge - base, "reply_tokens": len(reply)}


if __name__ == "__main__":
    main()
