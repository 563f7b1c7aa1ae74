#!/usr/bin/env python3
"""An independent Python rendering of ../shared/design/reference-retrieval.md.

It computes, for generated cases, what the reference retriever does in pure
Python (code points, str.split whitespace, dict order, stable sorts), and
writes testdata/reference/cases.json. The Go test TestReferenceParity
compares omoide's reference preset with it, float for float.

    python3 testdata/reference/reference.py > testdata/reference/cases.json
"""
import json
import math
import random


def compact(s):
    return " ".join(s.replace("\r", "").split())


def ngrams(text, n=3):
    if not text:
        return set()
    if len(text) <= n:
        return {text}
    return {text[i:i + n] for i in range(len(text) - n + 1)}


def dice(a, b):
    if not a or not b:
        return 0.0
    return 2 * len(a & b) / (len(a) + len(b))


def rrf(lists, k=60, limit=60):
    scores = {}
    for lst in lists:
        for rank, i in enumerate(lst, start=1):
            scores[i] = scores.get(i, 0.0) + 1.0 / (k + rank)
    ranked = sorted(scores.items(), key=lambda kv: kv[1], reverse=True)
    return ranked[:limit]


def format_context(messages, max_messages=6):
    lines = []
    for role, content in messages:
        if not content:
            continue
        label = "User" if role == "user" else "Persona"
        lines.append(f"{label}: {compact(content)}")
    return "\n".join(lines[-max_messages:])


def bm25_query(q):
    terms = compact(q)[:256].split()[:12]
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def rerank(query, cands, now):
    qg = ngrams(compact(query)[-1200:])
    strength = min(1.0, len(qg) / 30)
    mx = max((c["rrf"] for c in cands), default=0.0)
    if mx <= 0:
        mx = 1.0
    out = []
    for c in cands:
        eg = ngrams(compact(c["user_text"] + "\n" + c["reply_text"])[:1200])
        lex = dice(qg, eg) * strength
        rn = c["rrf"] / mx
        at = c["occurred_at"]
        rec = 0.0 if at <= 0 else math.exp(-max(0.0, (now - at) / 86400) / 45)
        final = 0.55 * rn + 0.35 * lex + 0.10 * rec
        out.append({"id": c["id"], "final": final, "rrf_norm": rn, "lex": lex, "rec": rec, "grams": eg})
    out.sort(key=lambda x: x["final"], reverse=True)
    picks = []
    for s in out:
        if len(picks) >= 5:
            break
        if s["final"] < 0.28:
            continue
        if any(p["grams"] and s["grams"] and dice(p["grams"], s["grams"]) >= 0.90 for p in picks):
            continue
        picks.append(s)
    if not picks or picks[0]["final"] < 0.35:
        picks = []
    reasons = ["heuristic rerank: score=%.3f rrf=%.3f lex=%.3f rec=%.3f" % (p["final"], p["rrf_norm"], p["lex"], p["rec"]) for p in picks]
    return out, picks, reasons


ALPHABET = list("ラーメンを食べた昨日今日膝が痛い猫こむぎ駅前の店で味噌うどんカレーabc XYZ\"*^:()") + \
    [" ", " ", "\u3000", "\n", "\r\n", "\t", "\x1c", "\x1f", "\u2028", "\xa0", "😀", "e\u0301", "！", "。"]


def text(rng, lo, hi):
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(lo, hi)))


def main():
    rng = random.Random(20251221)
    now = 1766314800  # 2025-12-21T11:00:00Z
    cases = []
    for n in range(60):
        ncand = rng.randint(0, 12)
        cands = []
        for i in range(ncand):
            c = {"id": i + 1, "user_text": text(rng, 0, 40), "reply_text": text(rng, 0, 60),
                 "occurred_at": rng.choice([0, now - rng.randint(0, 400 * 86400), now + 3600])}
            if not c["user_text"] and not c["reply_text"]:
                c["user_text"] = "x"
            cands.append(c)
        # Near-copies, so the dedupe has work to do.
        if ncand >= 2 and n % 3 == 0:
            cands[1]["user_text"], cands[1]["reply_text"] = cands[0]["user_text"], cands[0]["reply_text"] + "!"
        ids = [c["id"] for c in cands]
        lists = [rng.sample(ids, rng.randint(0, len(ids))) for _ in range(4)]
        fused = rrf(lists)
        byid = {c["id"]: c for c in cands}
        rcands = [dict(byid[i], rrf=s) for i, s in fused]
        messages = [(rng.choice(["user", "assistant"]), text(rng, 0, 30)) for _ in range(rng.randint(0, 9))]
        message = text(rng, 1, 50).strip() or "x"
        ctx = format_context(messages)
        query = ctx + "\n---\n" + message if ctx else message
        scored, picks, reasons = rerank(query, rcands, now)
        cases.append({
            "now": now, "candidates": cands, "lists": lists, "messages": [list(m) for m in messages],
            "message": message, "context": ctx, "query": query,
            "bm25_query": bm25_query(query),
            "fused": [[i, repr(s)] for i, s in fused],
            "scored": [[s["id"], repr(s["final"]), repr(s["rrf_norm"]), repr(s["lex"]), repr(s["rec"])] for s in scored],
            "picks": [p["id"] for p in picks], "reasons": reasons,
        })
    json.dump(cases, __import__("sys").stdout, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
