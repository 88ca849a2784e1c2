"""Signatures of allowed calls: only this user's key makes them, and an edit breaks them."""

import os
import stat

from jupyter_agent.session.records import CallSignature
from jupyter_agent.session.trust import TrustKey, call_text


def test_a_signature_verifies_for_the_same_call_only(tmp_path):
    key = TrustKey(tmp_path / "data" / "jupyter_agent" / "replay.key")
    signature = key.sign("s1", "call_1", "python", {"code": "x = 1"})
    assert signature.session == "s1" and len(signature.hmac) == 64
    assert key.verify(signature, {"s1"}, "call_1", "python", {"code": "x = 1"})
    assert not key.verify(signature, {"s1"}, "call_1", "python", {"code": "x = 2"})  # edited code
    assert not key.verify(signature, {"s1"}, "call_2", "python", {"code": "x = 1"})  # another call
    assert not key.verify(signature, {"s1"}, "call_1", "bash", {"code": "x = 1"})  # another tool
    assert not key.verify(signature, {"s2"}, "call_1", "python", {"code": "x = 1"})  # copied into another session
    assert not key.verify(None, {"s1"}, "call_1", "python", {"code": "x = 1"})  # never signed


def test_the_key_is_private_and_made_once(tmp_path):
    path = tmp_path / "data" / "jupyter_agent" / "replay.key"
    key = TrustKey(path)
    assert not path.exists()
    assert not key.verify(CallSignature(session="s", hmac="0" * 64), {"s"}, "c", "t", {})  # verifying makes no key
    assert not path.exists()
    signature = key.sign("s", "c", "t", {})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert TrustKey(path).verify(signature, {"s"}, "c", "t", {})  # another kernel of this user
    assert not TrustKey(tmp_path / "other.key").verify(signature, {"s"}, "c", "t", {})  # another user's key


def test_a_key_others_can_read_signs_and_trusts_nothing(tmp_path):
    path = tmp_path / "replay.key"
    signature = TrustKey(path).sign("s", "c", "t", {})
    os.chmod(path, 0o644)
    exposed = TrustKey(path)
    assert not exposed.verify(signature, {"s"}, "c", "t", {})
    assert exposed.sign("s", "c", "t", {}) is None
    assert exposed.problem == (
        f"the replay key {path} can be read by others (mode 644), so signatures made with it prove nothing: "
        "remove it to get a new one"
    )


def test_a_damaged_key_is_refused(tmp_path):
    path = tmp_path / "replay.key"
    path.write_text("not hex")
    os.chmod(path, 0o600)
    key = TrustKey(path)
    assert key.sign("s", "c", "t", {}) is None
    assert key.problem == f"the replay key {path} is not a key this version wrote: remove it to get a new one"


def test_the_signed_text_is_the_redacted_call(tmp_path):
    key = TrustKey(tmp_path / "k", redact=lambda text: text.replace("sk-secret", "[redacted:KEY]"))
    signature = key.sign("s", "c", "python", {"code": "key = 'sk-secret'"})
    # The session file holds the redacted code, and that is what verifies.
    assert key.verify(signature, {"s"}, "c", "python", {"code": "key = '[redacted:KEY]'"})
    assert call_text("s", "c", "t", {"b": 1, "a": 2}) == '["s","c","t",{"a":2,"b":1}]'
