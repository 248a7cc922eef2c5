"""sphinx-proof's blocks (`{prf:definition}`, `{prf:theorem}`, `{prf:proof}`, ...), which
Jupyter Book courses in mathematics and economics are full of.

Lessons have no numbered theorem environments, so each becomes an admonition titled as
sphinx-proof titles it, without the number: "Definition (Stationary)", "Proof". Its
`:label:` stays a target (mystdirectives.py), and `{prf:ref}` reaches it as `{ref}` does.
"""

from __future__ import annotations

PREFIX = "prf:"
# sphinx-proof's directives, by the word each is titled with.
KINDS = {
    name: name.capitalize()
    for name in (
        "algorithm axiom conjecture corollary criterion definition example lemma "
        "observation property proof proposition remark theorem assumption notation"
    ).split()
}


def is_proof_block(name: str) -> bool:
    """Whether `name` is one of sphinx-proof's directives."""
    return name.startswith(PREFIX) and name[len(PREFIX) :] in KINDS


def proof_title(name: str, argument: str) -> str:
    """The admonition title of a sphinx-proof block: its kind, and its own title after it."""
    kind = KINDS[name[len(PREFIX) :]]
    return f"{kind} ({argument})" if argument else kind
