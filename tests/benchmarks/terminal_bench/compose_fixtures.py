"""Two multi-container Terminal-Bench tasks, written by the tests, whose verifiers query a side service.

- ``web-secret``: ``main`` built from ``environment/Dockerfile``; a ``web`` service serves a secret over HTTP
  (``python3 -m http.server``, health-checked so ``main`` starts after it). The agent must copy the secret into
  ``/app/answer.txt``; the verifier fetches it again from ``web`` and compares.
- ``kv-record``: ``main`` is the prebuilt ``docker_image`` (no Dockerfile); a ``kv`` service, built from its own
  Dockerfile, is a tiny key-value store over HTTP with its data in a named volume. The agent must store
  ``greeting=hello`` in it; the verifier asks ``kv`` for the key (the state lives in the side service only).

Both run on the local base image and need no network beyond the project's own.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.environments.docker_support import BASE_IMAGE

FETCH = "python3 -c \"import urllib.request as u; print(u.urlopen('{url}', timeout=10).read().decode().strip())\""

WEB_COMPOSE = f"""\
services:
  web:
    image: {BASE_IMAGE}
    environment:
      SECRET: s3cr3t-42
    command: ["sh", "-c",
              "mkdir -p /srv && echo \\"$$SECRET\\" > /srv/secret.txt && cd /srv && exec python3 -m http.server 8000"]
    healthcheck:
      test: ["CMD", "python3", "-c", "import urllib.request as u; u.urlopen('http://127.0.0.1:8000/secret.txt')"]
      interval: 1s
      timeout: 5s
      retries: 60
  main:
    depends_on:
      web:
        condition: service_healthy
"""

WEB_TEST = f"""\
#!/bin/bash
expected=$({FETCH.format(url="http://web:8000/secret.txt")})
if [ -n "$expected" ] && [ "$(cat /app/answer.txt 2>/dev/null)" = "$expected" ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
"""

KV_SERVER = """\
import http.server, pathlib

DATA = pathlib.Path("/data")


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        path = DATA / self.path.strip("/")
        if self.path == "/health" or path.is_file():
            body = b"ok" if self.path == "/health" else path.read_bytes()
            self.send_response(200)
            self.end_headers()
            self.wfile.write(body)
        else:
            self.send_response(404)
            self.end_headers()

    def do_PUT(self):
        DATA.mkdir(exist_ok=True)
        (DATA / self.path.strip("/")).write_bytes(self.rfile.read(int(self.headers["Content-Length"])))
        self.send_response(204)
        self.end_headers()


http.server.ThreadingHTTPServer(("0.0.0.0", 9000), Handler).serve_forever()
"""

KV_COMPOSE = """\
services:
  kv:
    build: ./kv
    volumes:
      - kvdata:/data
    healthcheck:
      test: ["CMD", "python3", "-c", "import urllib.request as u; u.urlopen('http://127.0.0.1:9000/health')"]
      interval: 1s
      timeout: 5s
      retries: 60
  main:
    depends_on:
      kv:
        condition: service_healthy
volumes:
  kvdata: {}
"""

KV_PUT = (
    "python3 -c \"import urllib.request as u; u.urlopen(u.Request('http://kv:9000/greeting', "
    "data=b'hello', method='PUT'), timeout=10)\""
)

KV_TEST = f"""\
#!/bin/bash
if [ "$({FETCH.format(url="http://kv:9000/greeting")} 2>/dev/null)" = "hello" ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
"""

TOML = """\
version = "1.0"

[verifier]
timeout_sec = 60.0

[agent]
timeout_sec = {agent_timeout}

[environment]
build_timeout_sec = 300.0
cpus = 1
memory = "512M"
{extra}
[environment.env]
APP_MODE = "compose"
"""


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text) if rel.endswith(".toml") else text)
    return root


def web_secret(root: Path, task_id: str = "web-secret", agent_timeout: float = 60.0) -> Path:
    return _write(
        root / task_id,
        {
            "instruction.md": "Fetch http://web:8000/secret.txt and write its content to /app/answer.txt.\n",
            "task.toml": TOML.format(agent_timeout=agent_timeout, extra=""),
            "environment/Dockerfile": f"ARG BASE_IMAGE={BASE_IMAGE}\nFROM ${{BASE_IMAGE}}\nWORKDIR /app\n",
            "environment/docker-compose.yaml": WEB_COMPOSE,
            "tests/test.sh": WEB_TEST,
            "solution/solve.sh": f"#!/bin/bash\n{FETCH.format(url='http://web:8000/secret.txt')} > /app/answer.txt\n",
        },
    )


def kv_record(root: Path, task_id: str = "kv-record", agent_timeout: float = 60.0) -> Path:
    return _write(
        root / task_id,
        {
            "instruction.md": "Store the value 'hello' under the key 'greeting' in the key-value service at "
            "http://kv:9000 (PUT /greeting).\n",
            "task.toml": TOML.format(agent_timeout=agent_timeout, extra=f'docker_image = "{BASE_IMAGE}"\n'),
            "environment/docker-compose.yaml": KV_COMPOSE,
            "environment/kv/Dockerfile": f'FROM {BASE_IMAGE}\nCOPY server.py /server.py\nCMD ["python3", '
            '"/server.py"]\n',
            "environment/kv/server.py": KV_SERVER,
            "tests/test.sh": KV_TEST,
            "solution/solve.sh": f"#!/bin/bash\nset -e\n{KV_PUT}\n",
        },
    )


def compose_tasks(root: Path, **kw) -> Path:
    """Both tasks under ``root`` (a dataset directory)."""
    web_secret(root, **kw)
    kv_record(root, **kw)
    return root
