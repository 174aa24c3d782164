"""Headless Chromium on the previews of a site with right-to-left locales (run by rtl-preview.sh).

For each locale of the manifest: the published page says `"direction": "rtl"` exactly when the
manifest lists the locale as `rtl`; the preview's document direction is the same; and the layout
follows it: the page title hugs the right edge of its bar in rtl and the left edge in ltr, and an
announcement's icon stands on the side the text starts from.
"""
import argparse
import functools
import http.server
import json
import os
import sys
import threading

from cdp import Chromium

failures = []


def expect(condition, message):
    if not condition:
        failures.append(message)
        print(f"FAIL: {message}", flush=True)
    return condition


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


LAYOUT = """(() => {
  const title = document.querySelector('.navbar h1');
  const range = document.createRange();
  range.selectNodeContents(title);
  const text = range.getBoundingClientRect(), bar = title.getBoundingClientRect();
  const announcement = document.querySelector('.announcement');
  const icon = announcement.querySelector('.tone-icon').getBoundingClientRect();
  const body = announcement.querySelector(':scope > div').getBoundingClientRect();
  return {
    dir: document.documentElement.dir,
    direction: getComputedStyle(document.querySelector('.content')).direction,
    gapLeft: text.left - bar.left, gapRight: bar.right - text.right,
    iconRightOfText: icon.left >= body.right - 1,
    title: title.textContent,
  };
})()"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dist", required=True)
    parser.add_argument("--site", required=True)
    options = parser.parse_args()
    version_root = os.path.realpath(os.path.join(options.dist, options.site, "current"))
    with open(os.path.join(version_root, "manifest.json")) as file:
        manifest = json.load(file)
    directions = manifest.get("directions", {})
    expect(sorted(directions) == sorted(manifest["locales"]), f"manifest directions {directions} for locales {manifest['locales']}")
    expect("rtl" in directions.values() and "ltr" in directions.values(), f"the fixture needs both directions: {directions}")

    handler = functools.partial(QuietHandler, directory=options.dist)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/{options.site}/current"
    with Chromium(width=900, height=1000) as chromium:
        tab = chromium.new_tab()
        tab.send("Page.enable")
        for locale, direction in sorted(directions.items()):
            with open(os.path.join(version_root, locale, "home.json")) as file:
                page = json.load(file)
            expect(page.get("direction", "ltr") == direction, f"{locale}: page direction {page.get('direction')} != manifest {direction}")
            tab.navigate(f"{base}/preview/{locale}/home.html")
            drawn, _ = tab.wait_until("document.documentElement.getAttribute('data-drawn')", 10)
            expect(drawn and drawn != "missing", f"{locale}: the preview's script did not draw the page ({drawn!r})")
            layout = tab.evaluate(LAYOUT)
            print(f"{locale}: {layout}", flush=True)
            expect(layout["dir"] == direction and layout["direction"] == direction, f"{locale}: preview runs {layout}, expected {direction}")
            expect(layout["title"] == page["title"], f"{locale}: title {layout['title']!r} != {page['title']!r}")
            hugs_right = layout["gapRight"] < 2 and layout["gapLeft"] > 20
            hugs_left = layout["gapLeft"] < 2 and layout["gapRight"] > 20
            expect(hugs_right if direction == "rtl" else hugs_left, f"{locale}: the title does not start on the {direction} side: {layout}")
            expect(layout["iconRightOfText"] == (direction == "rtl"), f"{locale}: announcement icon on the wrong side: {layout}")
        tab.close()
    server.shutdown()
    if failures:
        print(f"{len(failures)} failure(s)", file=sys.stderr)
        sys.exit(1)
    print(f"rtl previews: {len(directions)} locales checked")


if __name__ == "__main__":
    main()
