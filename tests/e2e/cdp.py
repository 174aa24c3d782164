"""A small client for the Chrome DevTools protocol: starts headless Chromium, drives one tab.

Used by preview_check.py. Needs `websocket-client` (preview-chromium.sh installs it when missing).
"""
import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request

import websocket


class ProtocolError(Exception):
    pass


class Chromium:
    """One headless Chromium with a private profile, closed with the `with` block."""

    def __init__(self, width=1100, height=1000):
        self.profile = tempfile.mkdtemp(prefix="quire-chromium-")
        self.process = subprocess.Popen(
            [
                "chromium", "--headless=new", "--no-sandbox", "--disable-gpu",
                "--remote-debugging-port=0", "--remote-allow-origins=*",
                f"--user-data-dir={self.profile}", f"--window-size={width},{height}",
                "--hide-scrollbars", "--no-first-run", "--no-default-browser-check",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-extensions", "--disable-default-apps", "--mute-audio", "about:blank",
            ],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        self.port = self._wait_for_port()

    def _wait_for_port(self):
        marker = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ProtocolError(f"chromium exited with {self.process.returncode} before it listened")
            try:
                with open(marker) as file:
                    first = file.readline().strip()
                if first:
                    return int(first)
            except (FileNotFoundError, ValueError):
                pass
            time.sleep(0.1)
        raise ProtocolError("chromium did not open its DevTools port within 30 s")

    def new_tab(self):
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}/json/new?about:blank", method="PUT")
        with urllib.request.urlopen(request, timeout=10) as response:
            target = json.load(response)
        return Tab(target["webSocketDebuggerUrl"])

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


class Tab:
    """A page target: commands by id, events kept in order for the checks to read."""

    def __init__(self, url):
        self.socket = websocket.create_connection(url, timeout=30, suppress_origin=True)
        self.next_id = 0
        self.events = []
        for domain in ("Page", "Network", "Runtime", "Log"):
            self.send(f"{domain}.enable")

    def send(self, method, params=None, timeout=30):
        self.next_id += 1
        ident = self.next_id
        self.socket.send(json.dumps({"id": ident, "method": method, "params": params or {}}))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = self._receive(deadline)
            if message is None:
                continue
            if message.get("id") == ident:
                if "error" in message:
                    raise ProtocolError(f"{method}: {message['error']}")
                return message.get("result", {})
        raise ProtocolError(f"{method}: no answer within {timeout} s")

    def _receive(self, deadline):
        self.socket.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            message = json.loads(self.socket.recv())
        except websocket.WebSocketTimeoutException:
            return None
        if "method" in message:
            self.events.append(message)
        return message

    def pump(self, seconds):
        """Reads events for a while (they arrive only while we read)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self._receive(deadline)

    def navigate(self, url, timeout=30):
        start = len(self.events)
        result = self.send("Page.navigate", {"url": url})
        if result.get("errorText"):
            raise ProtocolError(f"navigate {url}: {result['errorText']}")
        self.wait_for_event("Page.loadEventFired", since=start, timeout=timeout)

    def wait_for_event(self, method, since=0, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            for event in self.events[since:]:
                if event["method"] == method:
                    return event
            if time.monotonic() >= deadline:
                raise ProtocolError(f"no {method} within {timeout} s")
            self._receive(deadline)

    def evaluate(self, expression, await_promise=False):
        result = self.send("Runtime.evaluate", {
            "expression": expression, "returnByValue": True, "awaitPromise": await_promise,
        })
        if "exceptionDetails" in result:
            raise ProtocolError(f"script failed: {result['exceptionDetails'].get('text')}: {expression[:80]}")
        return result["result"].get("value")

    def wait_until(self, expression, timeout):
        """Polls an expression in the page (which may be reloading) until it is truthy.
        Returns the value (None on timeout) and the seconds waited."""
        start = time.monotonic()
        while time.monotonic() - start < timeout:
            try:
                value = self.evaluate(expression)
                if value:
                    return value, time.monotonic() - start
            except ProtocolError:
                pass  # the page is between documents
            self.pump(0.2)
        return None, time.monotonic() - start

    def screenshot(self, path, clip=None):
        params = {"format": "png", "captureBeyondViewport": False}
        if clip:
            params["clip"] = dict(clip, scale=1)
        data = self.send("Page.captureScreenshot", params)["data"]
        with open(path, "wb") as file:
            file.write(base64.b64decode(data))

    def requested_urls(self):
        return [event["params"]["request"]["url"] for event in self.events
                if event["method"] == "Network.requestWillBeSent"]

    def close(self):
        self.socket.close()
