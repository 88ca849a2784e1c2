"""Telling text from binary, and which files are images a vision model can look at."""

from __future__ import annotations

from pathlib import Path

# A NUL byte in the first block is what grep and git use to call a file binary.
SNIFF_BYTES = 8192

IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}

# Skipped by grep without opening them: opening 50 000 files costs more than a name check.
BINARY_EXTENSIONS = frozenset(
    {
        ".png",
        ".jpg",
        ".jpeg",
        ".gif",
        ".webp",
        ".bmp",
        ".ico",
        ".tif",
        ".tiff",
        ".pdf",
        ".zip",
        ".gz",
        ".tgz",
        ".bz2",
        ".xz",
        ".zst",
        ".7z",
        ".rar",
        ".tar",
        ".whl",
        ".jar",
        ".so",
        ".dylib",
        ".dll",
        ".exe",
        ".o",
        ".a",
        ".pyc",
        ".pyo",
        ".class",
        ".wasm",
        ".parquet",
        ".feather",
        ".arrow",
        ".npy",
        ".npz",
        ".pkl",
        ".pickle",
        ".h5",
        ".hdf5",
        ".sqlite",
        ".db",
        ".mp3",
        ".mp4",
        ".wav",
        ".ogg",
        ".mov",
        ".avi",
        ".woff",
        ".woff2",
        ".ttf",
        ".otf",
        ".eot",
    }
)


def image_type(path: Path) -> str | None:
    return IMAGE_TYPES.get(path.suffix.lower())


def looks_binary(head: bytes) -> bool:
    return b"\x00" in head[:SNIFF_BYTES]


def has_binary_extension(name: str) -> bool:
    dot = name.rfind(".")
    return dot > 0 and name[dot:].lower() in BINARY_EXTENSIONS


def decode_text(data: bytes) -> str:
    # Mostly-UTF-8 files (a stray Latin-1 byte) stay readable rather than refused.
    return data.decode("utf-8", errors="replace")
