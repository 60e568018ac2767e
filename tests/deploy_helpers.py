"""The deployment of docs/deploy.md, run by the tests as the document writes it.

The document is the one source: its blocks marked ``<!-- test: NAME -->`` are read
here (:func:`doc_block`) and only the ports and paths are filled in
(:func:`fill`, which fails when the text to fill is gone, so the document cannot
drift from what the tests run). :func:`nginx_proxy` runs Debian's nginx with the
document's site, a certificate made for the test (:func:`make_certificate`, with
``openssl``), its configuration, pid file, logs and temporary files in a directory
of its own, on free ports, as an unprivileged user.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "docs" / "deploy.md"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def doc_block(name: str, doc: Path = DEPLOY) -> str:
    """The code block that follows ``<!-- test: NAME -->`` in ``doc`` (docs/deploy.md)."""
    text = doc.read_text(encoding="utf-8")
    found = re.search(rf"<!-- test: {re.escape(name)} -->\n```[\w-]*\n(.*?)```", text, re.S)
    assert found, f"{doc.relative_to(ROOT)} has no code block marked <!-- test: {name} -->"
    return found.group(1)


def fill(text: str, changes: dict[str, str]) -> str:
    """``text`` with each key replaced by its value, in order; each key must be there."""
    for old, new in changes.items():
        assert old in text, f"docs/deploy.md no longer has {old!r} where the test fills it in"
        text = text.replace(old, new)
    return text


def doc_env(changes: dict[str, str]) -> dict[str, str]:
    """The settings of docs/deploy.md's ``/etc/nimmt/nimmt.env`` (as systemd reads them),
    with ``changes`` (a value to fill in for a name the file sets)."""
    env: dict[str, str] = {}
    for line in doc_block("env").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, value = line.partition("=")
            env[name] = value
    for name in changes:
        assert name in env, f"docs/deploy.md's settings no longer set {name}"
    return {**env, **changes}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def make_certificate(where: Path) -> tuple[Path, Path, Path]:
    """A certificate authority, and a certificate for ``127.0.0.1`` and ``localhost``
    signed by it (as strict as Python's default TLS checks want it): the authority's
    certificate, the certificate, its key."""
    ca_key, ca, key, csr, cert = (where / n for n in
                                  ("ca.key", "ca.pem", "key.pem", "req.csr", "cert.pem"))
    ext = where / "ext.cnf"
    ext.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                   "basicConstraints=critical,CA:FALSE\n"
                   "keyUsage=critical,digitalSignature\n"
                   "extendedKeyUsage=serverAuth\n"
                   "subjectKeyIdentifier=hash\n"
                   "authorityKeyIdentifier=keyid\n")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    for args in (
        ["req", "-x509", *ec, "-keyout", ca_key, "-out", ca, "-days", "2",
         "-subj", "/CN=nimmt test authority",
         "-addext", "basicConstraints=critical,CA:TRUE",
         "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
        ["req", *ec, "-keyout", key, "-out", csr, "-subj", "/CN=localhost"],
        ["x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial",
         "-out", cert, "-days", "2", "-extfile", ext],
    ):
        subprocess.run(["openssl", *map(str, args)], check=True, capture_output=True)
    return ca, cert, key


@dataclass
class Proxy:
    """nginx running in front of a server."""

    #: ``https://127.0.0.1:PORT``: the room as the world sees it.
    url: str
    #: The certificate authority that signed the proxy's certificate.
    ca: Path
    where: Path

    def log(self) -> str:
        """nginx's error log, for a failing test's message."""
        with contextlib.suppress(OSError):
            return (self.where / "error.log").read_text(errors="replace")
        return ""


MAIN = """daemon off;
worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log notice;
events {{ worker_connections 512; }}
http {{
    access_log {d}/access.log;
    client_body_temp_path {d}/tmp/body;
    proxy_temp_path {d}/tmp/proxy;
    fastcgi_temp_path {d}/tmp/fastcgi;
    uwsgi_temp_path {d}/tmp/uwsgi;
    scgi_temp_path {d}/tmp/scgi;
    include {d}/nimmt.conf;
}}
"""


def _as_nobody(where: Path) -> dict[str, object]:
    """Run as ``nobody`` when the tests run as root (nginx is never run as root here):
    the directory becomes its; Popen's arguments to drop to it."""
    if os.geteuid() != 0:
        return {}
    nobody = pwd.getpwnam("nobody")
    for path in [where, *where.rglob("*")]:
        os.chown(path, nobody.pw_uid, nobody.pw_gid)
    return {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}


@contextlib.contextmanager
def nginx_proxy(upstream: str = "", servers: Sequence[int] = ()) -> Iterator[Proxy]:
    """nginx with docs/deploy.md's site in front of the server at ``upstream``
    (``http://127.0.0.1:PORT``), or of the processes on the ports ``servers`` through
    the document's ``upstream`` block, on free loopback ports, until the block ends."""
    assert bool(upstream) != bool(servers), "a server's address or the processes' ports"
    if not Path(NGINX).exists():
        pytest.fail(f"{NGINX} is missing: run scripts/setup (it installs nginx)")
    where = Path(tempfile.mkdtemp(prefix="nimmt-nginx-"))
    try:
        (where / "tmp").mkdir()
        ca, cert, key = make_certificate(where)
        port = free_port()
        site = fill(doc_block("nginx"), {
            "/etc/letsencrypt/live/play.example.org/fullchain.pem": str(cert),
            "/etc/letsencrypt/live/play.example.org/privkey.pem": str(key),
            "server_name play.example.org;": "server_name 127.0.0.1 localhost;",
            # This machine may have no IPv6: the IPv4 listeners are enough for a test.
            "    listen [::]:80;\n": "",
            "    listen [::]:443 ssl http2;\n": "",
            "listen 80;": f"listen 127.0.0.1:{free_port()};",
            "listen 443 ssl http2;": f"listen 127.0.0.1:{port} ssl http2;",
            "http://127.0.0.1:8000": upstream or "http://nimmt",
        })
        if servers:
            listed = "".join(f"    server 127.0.0.1:{port} max_fails=0;\n" for port in servers)
            site = fill(doc_block("nginx-upstream"), {
                "    server 127.0.0.1:8001 max_fails=0;\n    server 127.0.0.1:8002 max_fails=0;\n":
                listed}) + site
        (where / "nimmt.conf").write_text(site)
        (where / "nginx.conf").write_text(MAIN.format(d=where))
        drop = _as_nobody(where)
        proc = subprocess.Popen(
            [NGINX, "-p", str(where), "-c", str(where / "nginx.conf"), "-e",
             str(where / "error.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, **drop)  # type: ignore[call-overload]
        proxy = Proxy(f"https://127.0.0.1:{port}", ca, where)
        try:
            deadline = time.monotonic() + 60
            while True:
                assert proc.poll() is None, f"nginx stopped: {proxy.log()}"
                with contextlib.suppress(OSError), socket.create_connection(
                        ("127.0.0.1", port), timeout=5):
                    break
                assert time.monotonic() < deadline, f"nginx did not listen: {proxy.log()}"
                time.sleep(0.05)
            yield proxy
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    finally:
        shutil.rmtree(where, ignore_errors=True)
