"""Memory: short named notes beside the notebook that outlive a session (opt-in).

``store`` (the notes folder and its index), ``tool`` (the ``memory`` tool), ``prompt`` (the index
as a system-prompt section), ``extraction`` (one request after a run that saves what it taught),
``notebook_memory`` (all of it behind one on/off switch), ``view`` (the saved-notes strip with undo;
notebook layer).
"""
