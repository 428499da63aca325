#!/usr/bin/env python3
"""Finds and redacts secrets in the test fixtures (issue 23 item 6).

Real public traces carry the environment of the job that wrote them (TraceLens traces keep it in
metadata.system.env, with an HF_TOKEN among it). This script replaces each secret VALUE with the
string REDACTED and leaves every other byte as it was:

  * a JSON member whose name looks like a secret: *_TOKEN, TOKEN, *_KEY, *SECRET*, *PASSWORD*,
    *PASSWD*, *CREDENTIAL*, AWS_* (case-insensitive), when its value is a non-empty string;
  * NAME=value inside any text, for the same names (environment dumps, command lines);
  * the password of a URL with credentials (scheme://user:password@host);
  * token shapes wherever they stand: Hugging Face hf_…, GitHub ghp_…/github_pat_…, AWS AKIA…,
    Slack xox?-…, OpenAI sk-….

Plain files are rewritten in place; gzip files are decompressed, redacted and compressed again with
their original header (flags, mtime, file name, OS byte) and the compression level its XFL byte
names, so only the compressed stream changes. JSON files must still parse afterwards. SQLite and
other binary files are only scanned: a secret found there is an error (redact it at its source).
Names and counts are printed, never the values.

usage: redact_secrets.py [--check] [PATH...]
  default paths: tests/data and resources of the repository this script lies in
  --check   report what would be redacted and exit 1 if anything would; write nothing
"""
import gzip
import json
import os
import re
import struct
import sys
import zlib

REDACTED = b"REDACTED"

# Member names (any case): *_TOKEN or TOKEN, *API_KEY, *ACCESS_KEY, *_KEY (not a bare "key"),
# *SECRET*, *PASSWORD*, *PASSWD*, *CREDENTIAL*, AWS_*.
_SECRET_NAME = (rb"(?:[A-Za-z0-9_.-]*_)?(?:TOKEN|API_?KEY|ACCESS_?KEY)|[A-Za-z0-9_.-]*_KEY"
                rb"|[A-Za-z0-9_.-]*(?:SECRET|PASSWORD|PASSWD|CREDENTIAL)[A-Za-z0-9_.-]*|AWS_[A-Za-z0-9_.-]+")
# "NAME": "value" (JSON, any spacing); the value's escapes are kept whole.
JSON_MEMBER = re.compile(rb'"(' + _SECRET_NAME + rb')"(\s*:\s*)"((?:[^"\\]|\\.)+)"', re.I)
# NAME=value in free text, for environment-style (upper-case) names only, so that code (key=...)
# and pip pins (SecretStorage==3.3.1) stay; the value stops at whitespace, quotes and separators.
_ENV_NAME = (rb"(?:[A-Z0-9_]*_)?(?:TOKEN|API_?KEY|ACCESS_?KEY)|[A-Z0-9_]*_KEY"
             rb"|[A-Z0-9_]*(?:SECRET|PASSWORD|PASSWD|CREDENTIAL)[A-Z0-9_]*|AWS_[A-Z0-9_]+")
ASSIGNMENT = re.compile(rb"(?<![A-Za-z0-9_])(" + _ENV_NAME + rb")=(?!=)([^\s\"'&;,]+)")
URL_CREDENTIALS = re.compile(rb"([A-Za-z][A-Za-z0-9+.-]*://[^/\s:@\"']+:)([^/\s@\"']+)(@)")
TOKEN_SHAPES = re.compile(rb"(?<![A-Za-z0-9])(?:hf_[A-Za-z0-9]{30,}|ghp_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,}"
                          rb"|AKIA[0-9A-Z]{16}|xox[abprs]-[A-Za-z0-9-]{10,}|sk-[A-Za-z0-9]{32,})(?![A-Za-z0-9])")


def redact(data):
    """Returns (new bytes, list of (what, name)) with every secret value replaced by REDACTED."""
    found = []

    def member(m):
        if m.group(3) == REDACTED:
            return m.group(0)
        found.append(("JSON member", m.group(1).decode("ascii", "replace")))
        return b'"' + m.group(1) + b'"' + m.group(2) + b'"' + REDACTED + b'"'

    def assignment(m):
        if m.group(2) == REDACTED:
            return m.group(0)
        found.append(("NAME=value", m.group(1).decode("ascii", "replace")))
        return m.group(1) + b"=" + REDACTED

    def url(m):
        if m.group(2) == REDACTED:
            return m.group(0)
        found.append(("URL credentials", m.group(1).split(b"://")[0].decode("ascii", "replace")))
        return m.group(1) + REDACTED + m.group(3)

    def shape(m):
        found.append(("token shape", m.group(0)[:4].decode("ascii", "replace") + "…"))
        return REDACTED

    data = JSON_MEMBER.sub(member, data)
    data = ASSIGNMENT.sub(assignment, data)
    data = URL_CREDENTIALS.sub(url, data)
    data = TOKEN_SHAPES.sub(shape, data)
    return data, found


def gzip_header(raw):
    """(header bytes, compression level) of a single-member gzip file, or None if it is not one we rewrite."""
    if raw[:3] != b"\x1f\x8b\x08":
        return None
    flags = raw[3]
    if flags & 0xE0:
        return None
    pos = 10
    if flags & 0x04:  # FEXTRA
        (xlen,) = struct.unpack("<H", raw[pos:pos + 2])
        pos += 2 + xlen
    for bit in (0x08, 0x10):  # FNAME, FCOMMENT: zero-terminated
        if flags & bit:
            pos = raw.index(b"\0", pos) + 1
    if flags & 0x02:  # FHCRC
        return None  # the header CRC would need recomputing; no fixture has one
    level = {2: 9, 4: 1}.get(raw[8], 6)
    return raw[:pos], level


def regzip(raw, content):
    header, level = gzip_header(raw)
    c = zlib.compressobj(level, zlib.DEFLATED, -15, 9)
    body = c.compress(content) + c.flush()
    return header + body + struct.pack("<II", zlib.crc32(content) & 0xFFFFFFFF, len(content) & 0xFFFFFFFF)


def process(path, check):
    """Returns the number of secrets found in `path` (redacted unless check), or -1 on an unfixable file."""
    with open(path, "rb") as f:
        raw = f.read()
    compressed = raw[:2] == b"\x1f\x8b"
    content = raw
    if compressed:
        try:
            content = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error):
            return 0  # a deliberately broken gzip fixture: nothing readable to redact
    new, found = redact(content)
    if not found:
        return 0
    rel = os.path.relpath(path)
    for what, name in found:
        print(f"{rel}: {what} {name}")
    if check:
        return len(found)
    if content.startswith(b"SQLite format 3\0") or (compressed and gzip_header(raw) is None):
        print(f"{rel}: cannot rewrite this file; redact the secret at its source", file=sys.stderr)
        return -1
    if path.endswith((".json", ".json.gz")):
        try:
            json.loads(new)
        except ValueError as e:
            print(f"{rel}: not valid JSON after redaction ({e}); left unchanged", file=sys.stderr)
            return -1
    out = regzip(raw, new) if compressed else new
    if compressed:
        assert gzip.decompress(out) == new
    tmp = path + ".redact-tmp"
    with open(tmp, "wb") as f:
        f.write(out)
    os.replace(tmp, path)
    return len(found)


def main(argv):
    check = "--check" in argv
    paths = [a for a in argv if a != "--check"]
    if not paths:
        root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
        paths = [os.path.join(root, "tests", "data"), os.path.join(root, "resources")]
    total, failed = 0, False
    for top in paths:
        walk = [(top, [], [""])] if os.path.isfile(top) else os.walk(top)
        for dirpath, _, names in walk:
            for name in sorted(names):
                path = os.path.join(dirpath, name) if name else dirpath
                if os.path.islink(path) or not os.path.isfile(path) or path.endswith(".redact-tmp"):
                    continue
                if os.path.basename(path) == os.path.basename(__file__):
                    continue  # this script names the shapes it looks for
                n = process(path, check)
                failed |= n < 0
                total += max(n, 0)
    verb = "would redact" if check else "redacted"
    print(f"{verb} {total} secret value(s)")
    return 1 if failed or (check and total) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
