"""What the dashboard's end-to-end tests share: requests to the service through nginx as the
dashboard sends them, its event stream read on a thread, and snapshots of a folder's files."""

import hashlib
import http.client
import json
import os
import threading
import time

from quire_e2e import poll


class Service:
    def __init__(self, port, token=None):
        self.port = port
        self.origin = "http://127.0.0.1:%d" % port
        self.token = token

    def request(self, method, path, body=None, headers=None, port=None):
        connection = http.client.HTTPConnection("127.0.0.1", port or self.port, timeout=20)
        if isinstance(body, str):
            body = body.encode()
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        data = response.read()
        connection.close()
        try:
            parsed = json.loads(data)
        except ValueError:
            parsed = None
        return response.status, parsed, data

    def send(self, method, path, body=None, token=True, origin=True, extra=None):
        """A state-changing request as the dashboard sends it, unless told to leave a part out."""
        headers = {"Content-Type": "application/json"}
        if token is True:
            headers["X-Quire-Token"] = self.token
        elif token:
            headers["X-Quire-Token"] = token
        if origin is True:
            headers["Origin"] = self.origin
        elif origin:
            headers["Origin"] = origin
        headers.update(extra or {})
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
        return self.request(method, path, body, headers)


class Events:
    """One open `GET /api/events` stream, its events collected on a thread."""

    def __init__(self, port, headers=None):
        self.events = []
        self.lock = threading.Lock()
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.connection.request("GET", "/api/events", headers=headers or {})
        self.response = self.connection.getresponse()
        self.status = self.response.status
        self.type = self.response.getheader("Content-Type") or ""
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        name = None
        try:
            while True:
                line = self.response.readline()
                if not line:
                    return
                line = line.decode().rstrip("\n")
                if line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: ") and name:
                    with self.lock:
                        self.events.append((time.time(), name, json.loads(line[6:])))
        except (OSError, ValueError):
            return

    def published(self, save_id, timeout=20):
        """The publish event that carried `save_id`."""
        def find():
            with self.lock:
                for _, name, data in self.events:
                    if name == "publish" and any(save["save_id"] == save_id for save in data.get("saves", [])):
                        return data
            return None
        return poll(find, timeout=timeout)


def sha(data):
    return hashlib.sha256(data).hexdigest()


def snapshot(*folders):
    """Every entry under the folders: a file's sha256, or what else it is."""
    found = {}
    for folder in folders:
        for parent, names, files in os.walk(folder):
            for name in names + files:
                path = os.path.join(parent, name)
                if os.path.islink(path):
                    found[path] = "link -> " + os.readlink(path)
                elif os.path.isfile(path):
                    with open(path, "rb") as handle:
                        found[path] = sha(handle.read())
                else:
                    found[path] = "folder"
    return found
