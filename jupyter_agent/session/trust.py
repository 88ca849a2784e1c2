"""Which recorded tool calls this user approved: an HMAC per call, with a key only this user reads.

A session file is data anyone can edit or share, so a replay must not take its word that a call
was approved. When a call was allowed (by a click, by the session's trust, or by the mode the user
chose) and ran, the recorder signs it: HMAC-SHA256 over the session id, the call id, the tool name
and the arguments, with a per-user key. A replay trusts a recorded call only when its signature
verifies with this user's key for a session of this file's lineage; a record written by someone
else, by an older version, or edited since is new code and is asked about like any other.

The key is 32 random bytes in hex, created on first use with mode 0600 (its folder 0700). A key
file that others can read, or that another user owns, is not used: nothing is signed or trusted
with it until it is removed (``problem`` says so).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import stat
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from jupyter_agent.session.records import CallSignature

KEY_FILE_MODE = 0o600
KEY_FOLDER_MODE = 0o700
_KEY_BYTES = 32


def call_text(session: str, call_id: str, tool_name: str, arguments: Any) -> str:
    """The canonical text a signature covers (arguments as JSON with sorted keys)."""
    return json.dumps([session, call_id, tool_name, arguments], sort_keys=True, separators=(",", ":"), default=str)


class TrustKey:
    """This user's signing key at ``path``; read (or created) on first use.

    ``redact``: applied to the signed text first, so a call is signed as the session file holds it
    (secrets in arguments are written redacted, and read back so).
    """

    def __init__(self, path: str | Path, *, redact: Callable[[str], str] | None = None) -> None:
        self.path = Path(path)
        self.redact = redact
        self._key: bytes | None = None
        self.problem: str | None = None  # why the key cannot be used, once that was found

    def sign(self, session: str, call_id: str, tool_name: str, arguments: Any) -> CallSignature | None:
        """The signature of an allowed call, or None when the key cannot be used (``problem``)."""
        key = self._load(create=True)
        if key is None:
            return None
        return CallSignature(session=session, hmac=self._mac(key, call_text(session, call_id, tool_name, arguments)))

    def verify(
        self, signature: CallSignature | None, sessions: Collection[str], call_id: str, tool_name: str, arguments: Any
    ) -> bool:
        """Whether ``signature`` is this user's, for this call, made in one of ``sessions``."""
        if signature is None or signature.session not in sessions:
            return False
        key = self._load(create=False)
        if key is None:
            return False
        expected = hmac.new(key, call_text(signature.session, call_id, tool_name, arguments).encode(), hashlib.sha256)
        return hmac.compare_digest(expected.hexdigest(), signature.hmac)

    def _mac(self, key: bytes, text: str) -> str:
        if self.redact is not None:
            text = self.redact(text)
        return hmac.new(key, text.encode(), hashlib.sha256).hexdigest()

    def _load(self, *, create: bool) -> bytes | None:
        if self._key is not None:
            return self._key
        if self.problem is not None:
            return None
        try:
            self._key = self._read() if self.path.exists() or not create else self._create()
        except OSError as error:
            self.problem = f"the replay key {self.path} cannot be used: {error.strerror or error}"
        return self._key

    def _read(self) -> bytes | None:
        try:
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except FileNotFoundError:
            return None  # nothing was ever signed here: nothing verifies
        with os.fdopen(fd, "rb") as file:
            info = os.fstat(file.fileno())
            if hasattr(os, "getuid") and info.st_uid != os.getuid():
                self.problem = f"the replay key {self.path} belongs to another user: remove it to sign calls again"
                return None
            if stat.S_IMODE(info.st_mode) & 0o077:
                self.problem = (
                    f"the replay key {self.path} can be read by others (mode {stat.S_IMODE(info.st_mode):o}), so "
                    "signatures made with it prove nothing: remove it to get a new one"
                )
                return None
            text = file.read().decode("ascii", "replace").strip()
        try:
            key = bytes.fromhex(text)
        except ValueError:
            key = b""
        if len(key) < _KEY_BYTES:
            self.problem = f"the replay key {self.path} is not a key this version wrote: remove it to get a new one"
            return None
        return key

    def _create(self) -> bytes | None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=KEY_FOLDER_MODE)
        key = secrets.token_bytes(_KEY_BYTES)
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), KEY_FILE_MODE)
        except FileExistsError:
            return self._read()  # another kernel created it a moment ago
        with os.fdopen(fd, "w") as file:
            file.write(key.hex() + "\n")
            file.flush()
            os.fsync(file.fileno())
        return key


__all__ = ["KEY_FILE_MODE", "TrustKey", "call_text"]
