"""The task plan: a short checklist the model keeps with the ``plan`` tool.

``state`` (the checklist and its text forms), ``tool`` (the ``plan`` tool), ``prompt`` (the
system-prompt section re-sent every step), ``file`` (``<session>.plan.json``), ``view`` (the panel's
checklist; notebook layer).
"""
