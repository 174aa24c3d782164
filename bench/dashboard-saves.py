"""Saves through the dashboard's API on a generated site, timed from the client: `quire watch
--serve` on DIR/pages (made by `quire-bench generate`), each save a PUT of a page with a new hero
title through nginx, then two clocks from the moment the PUT is sent:

  - live: the apps' listener serves the new title (polled every millisecond): the plain save figure;
  - told: the dashboard's event stream says "published" with the save's id: what the editor sees.

Usage: python3 bench/dashboard-saves.py DIR [SAVES]   (QUIRE_BIN: the quire to run; release build)
"""

import http.client
import json
import os
import re
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))
from quire_e2e import QUIRE, poll  # noqa: E402


def request(port, method, path, body=None, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, data


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(max(int(-(-p * len(ordered) // 100)), 1), len(ordered)) - 1]


def main():
    folder = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    dist = os.path.join(folder, "dist-dashboard")
    subprocess.run(["rm", "-rf", dist])
    watcher = subprocess.Popen([QUIRE, "watch", "--pages", os.path.join(folder, "pages"), "--dist", dist, "--serve", "127.0.0.1:18700",
                                "--serve-next-free"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines = []
    threading.Thread(target=lambda: [lines.append(line) for line in watcher.stderr], daemon=True).start()
    try:
        found = poll(lambda: next((l for l in lines if "the dashboard: " in l), None), timeout=60)
        editors = int(re.search(r":(\d+)/dashboard/", found).group(1))
        apps = editors - 1
        started = time.time()
        poll(lambda: any("bench: published v000001" in l for l in lines), timeout=1800)
        print("first publish: %.1f s" % (time.time() - started), flush=True)
        time.sleep(5)  # the spare folders of the first version
        token = json.loads(request(editors, "GET", "/api/session")[1])["token"]
        headers = {"X-Quire-Token": token, "Origin": "http://127.0.0.1:%d" % editors, "Content-Type": "application/json"}
        events = []
        stream = http.client.HTTPConnection("127.0.0.1", editors, timeout=600)
        stream.request("GET", "/api/events")
        response = stream.getresponse()

        def read_events():
            for line in iter(response.readline, b""):
                if line.startswith(b"data: "):
                    events.append((time.perf_counter(), json.loads(line[6:])))
        threading.Thread(target=read_events, daemon=True).start()
        live, told, service = [], [], []
        for number in range(count):
            page = "page-%05d" % (number * 7919 % 10000)
            status, data = request(editors, "GET", "/api/sites/bench/pages/" + page)
            if status != 200:
                print("no page %s: %d" % (page, status))
                return 1
            opened = json.loads(data)
            title = "Dashboard save %d" % number
            text = re.sub(r"^(  - type: hero_banner\n(?:    .*\n)*?    title: ).*$", lambda m: m.group(1) + json.dumps(title),
                          opened["text"], count=1, flags=re.M)
            sent = time.perf_counter()
            status, data = request(editors, "PUT", "/api/sites/bench/pages/" + page,
                                   json.dumps({"base": opened["base"], "text": text}), headers)
            save_id = json.loads(data)["save_id"]
            served = poll(lambda: title in request(apps, "GET", "/bench/current/en/%s.json" % page)[1].decode(), timeout=30, interval=0.001)
            live_at = time.perf_counter()
            event = poll(lambda: next(((at, e) for at, e in events for s in e["saves"] if s["save_id"] == save_id), None), timeout=30,
                         interval=0.001)
            if not served or not event:
                print("save %d: served %r, event %r" % (number, served, event))
                return 1
            live.append((live_at - sent) * 1000)
            told.append((event[0] - sent) * 1000)
            service.append(next(s["ms"] for s in event[1]["saves"] if s["save_id"] == save_id))
            time.sleep(1)
        for name, values in [("live (apps' listener serves it)", live), ("told (event stream)", told),
                             ("service: file in place -> build done", service)]:
            print("%-40s p50 %7.1f ms  p99 %7.1f ms" % (name, percentile(values, 50), percentile(values, 99)))
    finally:
        watcher.terminate()
        watcher.wait(60)
    return 0


if __name__ == "__main__":
    sys.exit(main())
