"""Delegation: the ``delegate`` tool runs sub-agents on focused tasks and reports their answers.

``tool`` (the tool and the parent's context), ``child`` (one sub-agent's run), ``spend`` (the
parent's remaining spend shared by its children), ``transcripts`` (each child's session file),
``view`` (the nested child cards; notebook layer).
"""
