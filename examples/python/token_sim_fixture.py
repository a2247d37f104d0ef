"""token-sim for a unittest test class, with the Python standard library alone.

TokenSimTestCase gives each test class one simulator:
- by default it starts the CLI (node bin/token-sim.js --port 0 --frozen --now ... --seed ...), reads the
  URL from its first line, "token-sim listening on http://127.0.0.1:<port>", and stops it after the class:
  SIGTERM, then it waits for the exit (token-sim finishes the requests in flight and exits 0);
- with TOKEN_SIM_URL set, it uses that simulator (a container: docker run -p 8080:8080 token-sim, and
  TOKEN_SIM_URL=http://localhost:8080) and starts and stops nothing.

Before each test it resets the simulator and freezes its clock at START, so tests do not see each other.
TOKEN_SIM_BIN names another bin/token-sim.js (say node_modules/token-sim/bin/token-sim.js); the default is
the one of the checkout this file sits in.
"""
import base64
import json
import os
import re
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request

START = "2030-01-01T00:00:00Z"
USER, PASSWORD = "merchant", "secret"  # the default fixtures' credentials
TOKENS = "application/vnd.service.tokens-v1.hal+json"
SALE_REQUEST = "application/vnd.service.payments-v5+json"
SALE_RESPONSE = "application/vnd.service.payments-v5.hal+json"

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BIN = os.path.join(HERE, "..", "..", "bin", "token-sim.js")
LISTENING = re.compile(r"^token-sim listening on (\S+)$")


class Response:
    def __init__(self, status, headers, data):
        self.status = status
        self.headers = headers
        self.json = json.loads(data) if data else None


def request(method, url, body=None, headers=None):
    """One HTTP request; an error status is an answer like any other, not an exception."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            return Response(res.status, res.headers, res.read())
    except urllib.error.HTTPError as error:
        with error:
            return Response(error.code, error.headers, error.read())


class TokenSim:
    """A running token-sim: its URL, and the process when this fixture started it."""

    def __init__(self, url, process=None):
        self.url = url.rstrip("/")
        self.process = process

    @classmethod
    def start(cls, now=START, seed="python-example", timeout=30):
        command = ["node", os.environ.get("TOKEN_SIM_BIN", DEFAULT_BIN),
                   "--port", "0", "--frozen", "--now", now, "--seed", seed, "--log", "silent"]
        env = {name: value for name, value in os.environ.items() if name != "TOKEN_SIM_BIN"}  # not a CLI option
        stderr = tempfile.TemporaryFile()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, env=env, text=True)
        lines = []
        reader = threading.Thread(target=lambda: lines.append(process.stdout.readline()), daemon=True)
        reader.start()
        reader.join(timeout)
        match = LISTENING.match(lines[0].strip()) if lines else None
        if match is None:
            process.kill()
            process.wait()
            stderr.seek(0)
            raise RuntimeError(f"token-sim did not start: {stderr.read().decode(errors='replace').strip()}")
        stderr.close()
        return cls(match.group(1), process)

    def wait_until_healthy(self, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            try:
                if request("GET", self.url + "/_sim/health").status == 200:
                    return
            except OSError:
                pass  # not listening yet
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.url}/_sim/health did not answer 200 within {timeout} s")
            time.sleep(0.2)

    def stop(self, timeout=30):
        if self.process is None:
            return  # not ours to stop
        self.process.terminate()  # SIGTERM
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise
        finally:
            self.process.stdout.close()
        if os.name == "posix" and code != 0:
            raise RuntimeError(f"token-sim exited with code {code} after SIGTERM")


class TokenSimTestCase(unittest.TestCase):
    sim = None

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        url = os.environ.get("TOKEN_SIM_URL")
        cls.sim = TokenSim(url) if url else TokenSim.start()
        try:
            cls.sim.wait_until_healthy()
        except Exception:
            cls.sim.stop()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.sim.stop()
        super().tearDownClass()

    def setUp(self):
        self.assertEqual(self.control("POST", "/_sim/reset").status, 204)
        self.assertEqual(self.control("DELETE", "/_sim/scenarios").status, 204)
        self.assertEqual(self.control("PUT", "/_sim/clock", {"now": START, "frozen": True}).status, 200)

    def api(self, method, target, body=None, content_type=TOKENS, accept=TOKENS):
        """The simulated API: a path of the simulator ("/tokens") or an href it answered, with Basic auth."""
        credentials = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        headers = {"Authorization": f"Basic {credentials}", "Accept": accept}
        if body is not None:
            headers["Content-Type"] = content_type
        url = target if target.startswith(("http://", "https://")) else self.sim.url + target
        return request(method, url, body, headers)

    def control(self, method, path, body=None):
        """token-sim's own control API under /_sim: JSON, no credentials (none are set by default)."""
        headers = {"Content-Type": "application/json"} if body is not None else {}
        return request(method, self.sim.url + path, body, headers)
