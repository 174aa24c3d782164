"""Headless Chromium against published previews, served by a real web server (http.server).

Run by preview-chromium.sh after it has published the sample sites and the `planted` fixture
site into DIST from a scratch copy of the sources in PAGES. Checks, collecting every failure:

  - each section of each sample page (a draft and a page in parts among them): a screenshot, not
    blank (Pillow), its images loaded, and the page's text (from the JSON the script reads, every
    part) present in the section's DOM, drawn by the preview's script from that JSON;
  - planted script (markdown, a title, a translation, a diagnostic) never runs, and no script,
    event handler or javascript: URL reaches the DOM; the same for hostile JSON no build would
    publish (fixtures/hostile-page.json: javascript: links and images, markup in every field)
    drawn by the same script;
  - every request the browser made went to the local server, none failed, no CSP violation;
  - live reload: a preview opened through current/ reloads after a save under `quire watch`;
    a broken save shows the diagnostics banner above the last good rendering; a fix clears it.
"""
import argparse
import functools
import http.server
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

from PIL import Image

from cdp import Chromium

SAMPLE_SITES = ["trex", "springfield-pd"]
failures = []


def expect(condition, message):
    if not condition:
        failures.append(message)
        print(f"FAIL: {message}", flush=True)
    return condition


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


def serve(directory):
    handler = functools.partial(QuietHandler, directory=directory)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def normalized(text):
    return re.sub(r"\s+", " ", text).strip()


def section_texts(section):
    """The text a preview must show for one published section."""
    texts = []

    def markdown_texts(node):
        if isinstance(node, dict):
            if node.get("type") in ("text", "code") and isinstance(node.get("text"), str):
                texts.append(node["text"])
            for value in node.values():
                markdown_texts(value)
        elif isinstance(node, list):
            for value in node:
                markdown_texts(value)

    def fields(object):
        for key, value in object.items():
            if key in ("title", "subtitle", "label", "caption", "price", "summary") and isinstance(value, str):
                texts.append(value)
            elif key == "drill_ids" and isinstance(value, list):
                texts.extend(v for v in value if isinstance(v, str))
            elif key.endswith("_blocks") and isinstance(value, list):
                markdown_texts(value)  # a markdown field's block tree, published beside it
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, dict):
                        fields(item)

    if section.get("type") in KNOWN_TYPES:
        fields(section)
    else:
        texts.append(section.get("type", ""))
    return [normalized(t) for t in texts if normalized(t)]


KNOWN_TYPES = {"hero_banner", "markdown_block", "product_grid", "drill_carousel", "cta_button",
               "video_embed", "image_gallery", "divider", "announcement", "page_link"}


def open_preview(tab, url):
    """Loads a preview and waits until its script has drawn the page from the JSON."""
    tab.navigate(url)
    drawn, _ = tab.wait_until("document.documentElement.getAttribute('data-drawn')", 10)
    expect(drawn and drawn != "missing", f"{url}: the page was not drawn ({drawn!r})")
    return drawn


def page_parts(dist, site, locale, page_id):
    """The JSON the preview draws: the published page, or a draft's beside its preview; every part."""
    version = os.path.join(dist, site, "current")
    path = os.path.join(version, locale, page_id + ".json")
    if not os.path.exists(path):
        path = os.path.join(version, "preview", locale, page_id + ".json")
    parts = []
    while path:
        with open(path) as file:
            parts.append(json.load(file))
        following = parts[-1].get("next")
        path = os.path.join(os.path.dirname(path), following) if following else None
    return parts


def pages_of(dist, site, locale):
    root = os.path.join(dist, site, "current", "preview", locale)
    found = []
    for folder, _, files in os.walk(root, followlinks=True):
        for name in files:
            if name.endswith(".html"):
                found.append(os.path.relpath(os.path.join(folder, name), root)[: -len(".html")])
    return sorted(found)


def default_locale(pages, site):
    with open(os.path.join(pages, site, "site.yaml")) as file:
        match = re.search(r"^default_locale:\s*(\S+)", file.read(), re.M)
    return match.group(1) if match else "en"


def check_blank(path, kind):
    image = Image.open(path).convert("RGB")
    colours = image.getcolors(maxcolors=1 << 20) or []
    if not expect(len(colours) > 1, f"{path}: blank screenshot (a single colour)"):
        return
    dominant = max(colours)[0]
    other = 1 - dominant / (image.width * image.height)
    if kind != "divider":
        expect(other >= 0.005, f"{path}: nearly blank screenshot ({other:.2%} of pixels differ from the background)")


SCROLL_TO_SECTION = """
(async (index) => {
  const section = document.querySelectorAll('section.section')[index];
  document.querySelector('.phone').scrollIntoView({block: 'end'});
  const screen = document.querySelector('.screen');
  const bar = document.querySelector('.statusbar');
  screen.scrollTop += section.getBoundingClientRect().top - screen.getBoundingClientRect().top - bar.offsetHeight - 4;
  const images = [...section.querySelectorAll('img')];
  await Promise.all(images.map(image => image.complete && image.naturalWidth ? null : new Promise(done => {
    image.addEventListener('load', done); image.addEventListener('error', done); setTimeout(done, 5000);
  })));
  await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  const rect = section.getBoundingClientRect();
  const visible = screen.getBoundingClientRect();
  return {
    x: rect.left + scrollX, y: rect.top + scrollY, width: rect.width,
    height: Math.max(1, Math.min(rect.bottom, visible.bottom) - rect.top),
    type: section.dataset.sectionType,
    text: section.textContent,
    brokenImages: images.filter(image => !image.naturalWidth).map(image => image.getAttribute('src')),
  };
})
"""


def check_sample_pages(tab, base, dist, pages, out):
    saved_types = {}
    seen_parts, seen_drafts = [], []
    for site in SAMPLE_SITES:
        locale = default_locale(pages, site)
        page_ids = pages_of(dist, site, locale)
        expect(page_ids, f"{site}: no previews under current/preview/{locale}/")
        for page_id in page_ids:
            url = f"{base}/{site}/current/preview/{locale}/{page_id}.html"
            open_preview(tab, url)
            parts = page_parts(dist, site, locale, page_id)
            sections = [section for part in parts for section in part.get("sections", [])]
            if len(parts) > 1:
                seen_parts.append(page_id)
            if os.path.exists(os.path.join(dist, site, "current", "preview", locale, page_id + ".json")):
                seen_drafts.append(page_id)
            title = tab.evaluate("document.querySelector('.navbar h1').textContent")
            expect(title == parts[0].get("title", page_id), f"{url}: title {title!r}, published {parts[0].get('title')!r}")
            count = tab.evaluate("document.querySelectorAll('section.section').length")
            expect(count == len(sections), f"{url}: {count} sections drawn, the page has {len(sections)}")
            slug = f"{site}--{page_id.replace('/', '-')}"
            tab.screenshot(os.path.join(out, f"page-{slug}.png"))
            check_blank(os.path.join(out, f"page-{slug}.png"), "page")
            for index, section in enumerate(sections[:count]):
                drawn = tab.evaluate(f"{SCROLL_TO_SECTION}({index})", await_promise=True)
                kind = section.get("type", "")
                expect(drawn["type"] == kind, f"{url}: section {index} drawn as {drawn['type']!r}, published as {kind!r}")
                expect(not drawn["brokenImages"], f"{url}: section {index} ({kind}): images not loaded: {drawn['brokenImages']}")
                shown = normalized(drawn["text"])
                for text in section_texts(section):
                    expect(text in shown, f"{url}: section {index} ({kind}): text {text!r} missing from the DOM")
                label = kind if kind in KNOWN_TYPES else "unknown"
                path = os.path.join(out, "sections", f"{slug}--{index:02d}-{label}.png")
                clip = {key: drawn[key] for key in ("x", "y", "width", "height")}
                tab.screenshot(path, clip)
                check_blank(path, kind)
                if label not in saved_types:
                    saved_types[label] = path
                    tab.screenshot(os.path.join(out, f"section-{label}.png"), clip)
    missing = (KNOWN_TYPES | {"unknown"}) - set(saved_types)
    expect(not missing, f"the samples lack section types {sorted(missing)}: no screenshot of them")
    expect(seen_parts, "no sample page in parts: pagination is not checked")
    expect(seen_drafts, "no draft among the samples: drafts are not checked")
    # A navigate button links to the preview of the page it names.
    open_preview(tab, f"{base}/trex/current/preview/en/range-log.html")
    link, _ = tab.wait_until("(document.querySelector('.cta a.button[href$=\"/preview/en/trex-store.html\"]') || {}).href", 10)
    if expect(link, "range-log: the navigate button does not link to the trex-store preview"):
        open_preview(tab, link)
    # A feed draws as cards, each linking to its page's preview.
    open_preview(tab, f"{base}/trex/current/preview/en/feeds/guides.html")
    # Each card's button becomes a link when its own request returns: wait for all of them.
    cards_drawn = "[...document.querySelectorAll('article.card a.button')].map(a => a.getAttribute('href').split('/preview/')[1])"
    tab.wait_until("document.querySelectorAll('article.card').length > 0"
                   " && !document.querySelector('article.card span.button[data-page]')", 10)
    cards = tab.evaluate(cards_drawn)
    expect(cards == ["en/guides/church-security.html", "en/guides/range-safety.html"],
           f"feeds/guides: the cards do not link to the guides' previews: {cards}")
    expect("How a congregation builds a safety team." in tab.evaluate("document.body.textContent"),
           "feeds/guides: the card's summary is not drawn")
    # A button naming an app route, not a page, stays a button.
    open_preview(tab, f"{base}/trex/current/preview/en/trex-store.html")
    tab.pump(2.0)
    expect(tab.evaluate("document.querySelectorAll('.cta span.button[data-page=\"drills\"]').length") == 1,
           "trex-store: the button to the /drills app route became a link")
    # The same file through an immutable version path: relative asset URLs must work there too.
    version = os.readlink(os.path.join(dist, "trex", "current")).split("/")[-1]
    open_preview(tab, f"{base}/trex/versions/{version}/preview/en/trex-store.html")
    expect(tab.evaluate("document.getElementById('quire-version').textContent") == version,
           f"versions/{version} preview: the toolbar does not name {version}")
    broken = tab.evaluate("[...document.images].filter(i => i.loading !== 'lazy' && !i.naturalWidth).map(i => i.src)")
    expect(not broken, f"versions/{version} preview: images not loaded: {broken}")


INJECTION_PROBE = """
(() => ({
  title: document.title,
  scripts: document.scripts.length,
  handlers: [...document.querySelectorAll('*')].flatMap(e => [...e.attributes]
      .filter(a => /^on/i.test(a.name)).map(a => e.tagName.toLowerCase() + '[' + a.name + ']')),
  embeds: document.querySelectorAll('iframe, object, embed, svg, form, base, meta[http-equiv="refresh"]').length,
  unsafeURLs: [...document.querySelectorAll('[href], [src], [action], [formaction]')]
      .map(e => e.getAttribute('href') || e.getAttribute('src') || e.getAttribute('action') || e.getAttribute('formaction'))
      .filter(u => /^[\\s\\x00-\\x1f]*(javascript|vbscript|data):/i.test(u)),
  text: document.body.textContent,
}))()
"""


def check_planted(tab, base, out):
    targets = [
        ("preview en", f"{base}/planted/current/preview/en/evil.html", 1),
        ("preview fr", f"{base}/planted/current/preview/fr/evil.html", 1),
        ("status page", f"{base}/planted/status/index.html", 1),
    ]
    for name, url, own_scripts in targets:
        if "/preview/" in url:
            open_preview(tab, url)
        else:
            tab.navigate(url)
        tab.pump(1.0)  # let a planted onerror/onload fire if one got through
        probe = tab.evaluate(INJECTION_PROBE)
        expect(probe["title"] != "pwned" and "pwned" not in tab.evaluate("window.name + String(window.pwned)"),
               f"planted {name}: a planted script ran (title {probe['title']!r})")
        expect(probe["title"].endswith("preview") or "status" in probe["title"].lower(),
               f"planted {name}: unexpected title {probe['title']!r}")
        expect(probe["scripts"] == own_scripts, f"planted {name}: {probe['scripts']} scripts in the DOM, expected {own_scripts}")
        expect(not probe["handlers"], f"planted {name}: event handler attributes in the DOM: {probe['handlers']}")
        expect(probe["embeds"] == 0, f"planted {name}: {probe['embeds']} iframe/object/svg/form elements in the DOM")
        expect(not probe["unsafeURLs"], f"planted {name}: unsafe URLs in the DOM: {probe['unsafeURLs']}")
        tab.screenshot(os.path.join(out, f"planted-{name.replace(' ', '-')}.png"))
    # The planted text is shown as text, not dropped.
    open_preview(tab, f"{base}/planted/current/preview/en/evil.html")
    text = tab.evaluate("document.querySelector('.content').textContent")
    expect("<script>document.title='pwned'</script>Hero title" in text, "planted preview: the hero title is not shown as text")
    tab.navigate(f"{base}/planted/status/index.html")
    text = tab.evaluate("document.body.textContent")
    expect("found '<script>document.title='pwned'</script>'" in text,
           "planted status page: the diagnostic quoting script is not shown as text")


def check_hostile_json(browser, base, dist, out):
    """JSON no build would publish, drawn by the real script and shell in a version of its own."""
    root = os.path.join(dist, "hostile")
    version = os.path.join(root, "versions", "v000001")
    trex = os.path.realpath(os.path.join(dist, "trex", "current"))
    os.makedirs(os.path.join(version, "preview", "en"), exist_ok=True)
    os.makedirs(os.path.join(version, "en"), exist_ok=True)
    os.makedirs(os.path.join(version, "assets"), exist_ok=True)
    os.makedirs(os.path.join(root, "status"), exist_ok=True)
    for name in ("preview.css", "preview.js"):
        with open(os.path.join(trex, "preview", name), "rb") as source, open(os.path.join(version, "preview", name), "wb") as target:
            target.write(source.read())
    with open(os.path.join(trex, "preview", "en", "trex-store.html"), "rb") as source:
        shell = source.read()
    with open(os.path.join(version, "preview", "en", "hostile.html"), "wb") as target:
        target.write(shell)
    with open(os.path.join(trex, "assets", "trex-banner.jpg"), "rb") as source, open(os.path.join(version, "assets", "a.jpg"), "wb") as target:
        target.write(source.read())
    with open(os.path.join(os.path.dirname(__file__), "fixtures", "hostile-page.json")) as source:
        page = source.read()
    with open(os.path.join(version, "en", "hostile.json"), "w") as target:
        target.write(page)
    with open(os.path.join(root, "status", "summary.json"), "w") as target:
        json.dump({"site": "hostile", "version": "v000001", "current": "v000001", "page_diagnostics": {}}, target)
    tab = browser.new_tab()
    tab.send("Page.enable")
    url = f"{base}/hostile/versions/v000001/preview/en/hostile.html"
    open_preview(tab, url)
    tab.pump(1.0)
    probe = tab.evaluate(INJECTION_PROBE)
    dialogs = [e for e in tab.events if e["method"] == "Page.javascriptDialogOpening"]
    expect(not dialogs, f"hostile JSON: a script ran and opened {len(dialogs)} dialog(s)")
    expect(probe["scripts"] == 1, f"hostile JSON: {probe['scripts']} scripts in the DOM")
    expect(not probe["handlers"], f"hostile JSON: event handler attributes in the DOM: {probe['handlers']}")
    expect(probe["embeds"] == 0, f"hostile JSON: {probe['embeds']} iframe/object/svg/form elements in the DOM")
    expect(not probe["unsafeURLs"], f"hostile JSON: unsafe URLs in the DOM: {probe['unsafeURLs']}")
    hrefs = tab.evaluate("[...document.querySelectorAll('.content [href]')].map(e => e.getAttribute('href'))")
    expect(all(re.match(r"^(https?:|/[^/]|#|[^:/]+(/|$))", h) for h in hrefs), f"hostile JSON: hrefs {hrefs}")
    images = tab.evaluate("[...document.querySelectorAll('.content img')].map(e => e.getAttribute('src'))")
    expect(images and all(i.startswith(f"{base}/hostile/versions/v000001/") for i in images), f"hostile JSON: images {images}")
    text = normalized(probe["text"])
    for shown in ["Tom's \"quoted\" <b>bold</b> & co", "<img src=x onerror=alert(1)>", "Click <me>",
                  "not a usable link: javascript:alert(document.domain)", "Unknown section type “<script>alert(1)</script>”",
                  "remote image · cdn.example.com", "image not shown", "a javascript link"]:
        expect(shown in text, f"hostile JSON: {shown!r} not shown as text")
    expect(probe["title"] == "<script>alert(1)</script> · en · preview", f"hostile JSON: title {probe['title']!r}")
    tab.screenshot(os.path.join(out, "hostile-json.png"))
    check_requests(tab, base)
    tab.close()


def check_status_pages(tab, base, dist, out):
    for site in SAMPLE_SITES:
        url = f"{base}/{site}/status/index.html"
        tab.navigate(url)
        with open(os.path.join(dist, site, "status", "status.json")) as file:
            status = json.load(file)
        text = normalized(tab.evaluate("document.body.textContent"))
        for page_id in status.get("pages", {}):
            expect(page_id in text, f"{url}: page {page_id!r} not listed")
        for row in status.get("coverage", []):
            expect(row["locale"] in text, f"{url}: coverage of {row['locale']!r} not shown")
        links = tab.evaluate("[...document.querySelectorAll('a[href*=\"preview/\"]')].map(a => a.href)")
        expect(links, f"{url}: no links to previews")
        for link in links[:3]:
            open_preview(tab, link)
            expect(tab.evaluate("document.querySelectorAll('section.section').length") > 0, f"{url}: link {link} shows no preview")
        tab.navigate(url)
        height = tab.evaluate("document.documentElement.scrollHeight")
        tab.send("Emulation.setDeviceMetricsOverride", {"width": 1100, "height": min(height, 4000), "deviceScaleFactor": 1, "mobile": False})
        tab.screenshot(os.path.join(out, f"status-{site}.png"))
        tab.send("Emulation.clearDeviceMetricsOverride")
        check_blank(os.path.join(out, f"status-{site}.png"), "status")


def check_requests(tab, base):
    urls = tab.requested_urls()
    expect(urls, "the network log is empty: no requests were recorded")
    outside = sorted({u for u in urls if not u.startswith(base + "/")})
    expect(not outside, f"requests that left the local server: {outside}")
    # A navigate button's probe of its target's preview: a 404 is its answer that there is none.
    probes = {e["params"]["requestId"] for e in tab.events
              if e["method"] == "Network.requestWillBeSent" and e["params"]["request"]["method"] == "HEAD"}
    failed = sorted({
        e["params"]["response"]["url"] for e in tab.events
        if e["method"] == "Network.responseReceived" and e["params"]["response"]["status"] >= 400
        and not (e["params"]["requestId"] in probes and e["params"]["response"]["status"] == 404)
        and not e["params"]["response"]["url"].endswith("/favicon.ico")
        # The dashboard's event stream, which this plain server lacks: the preview polls instead.
        and not e["params"]["response"]["url"].endswith("/api/events")
    })
    expect(not failed, f"requests that failed: {failed}")
    blocked = sorted({
        f"{e['params'].get('requestId')}: {e['params'].get('blockedReason') or e['params'].get('errorText')}"
        for e in tab.events if e["method"] == "Network.loadingFailed" and e["params"].get("blockedReason")
    })
    expect(not blocked, f"requests blocked by the browser: {blocked}")
    violations = sorted({
        e["params"]["entry"]["text"] for e in tab.events
        if e["method"] == "Log.entryAdded" and "Content Security Policy" in e["params"]["entry"].get("text", "")
    } | {
        str(e["params"]["args"][0].get("value")) for e in tab.events
        if e["method"] == "Runtime.consoleAPICalled" and e["params"]["type"] == "error" and e["params"]["args"]
        and "Content Security Policy" in str(e["params"]["args"][0].get("value"))
    })
    expect(not violations, f"Content-Security-Policy violations: {violations}")
    errors = [e["params"]["exceptionDetails"].get("text") for e in tab.events if e["method"] == "Runtime.exceptionThrown"]
    expect(not errors, f"script errors in the preview: {errors}")
    print(f"network: {len(urls)} requests, all to {base}", flush=True)


class Watcher:
    """`quire watch` as a child process, its stderr kept for the report."""

    def __init__(self, quire, pages, dist, site):
        self.lines = []
        self.ready = threading.Event()
        self.process = subprocess.Popen(
            [quire, "watch", "--pages", pages, "--dist", dist, "--site", site],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stderr:
            self.lines.append(line.rstrip())
            if line.startswith("quire: watching"):
                self.ready.set()

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                failures.append("quire watch did not stop within 30 s of SIGTERM")


BANNER = "(() => { const b = document.getElementById('quire-diagnostics'); return b && !b.hidden ? b.textContent : null; })()"


def check_live_reload(browser, base, quire, pages, dist, out):
    source = os.path.join(pages, "trex", "trex-store.yaml")
    with open(source) as file:
        original = file.read()
    tab = browser.new_tab()
    url = f"{base}/trex/current/preview/en/trex-store.html"
    tab.navigate(url)
    first_version, _ = tab.wait_until("document.getElementById('quire-version').textContent.startsWith('v') && document.getElementById('quire-version').textContent", 10)
    expect(first_version, "preview through current/: the toolbar shows no version")
    watcher = Watcher(quire, pages, dist, "trex")
    try:
        if not expect(watcher.ready.wait(120), "quire watch did not start watching within 120 s: " + " | ".join(watcher.lines)):
            return
        nonce = f"E2E-{os.getpid()}-{int(time.time())}"
        edited = original.replace("title: Training Essentials", f"title: Training Essentials {nonce}")
        expect(edited != original, "trex-store.yaml: the hero title to edit was not found")
        with open(source, "w") as file:
            file.write(edited)
        found, seconds = tab.wait_until(f"document.body && document.body.textContent.includes({json.dumps(nonce)})", 20)
        if expect(found, f"live reload: the preview did not show the saved text within 20 s (watch: {' | '.join(watcher.lines[-5:])})"):
            print(f"live reload: new text in the DOM {seconds:.1f} s after the save", flush=True)
            version, _ = tab.wait_until("document.getElementById('quire-version').textContent.startsWith('v') && document.getElementById('quire-version').textContent", 10)
            expect(version and version != first_version, f"live reload: the toolbar shows version {version!r}, first {first_version!r}")

        broken = edited.replace("action: navigate", "action: navgate")
        expect(broken != edited, "trex-store.yaml: the cta action to break was not found")
        with open(source, "w") as file:
            file.write(broken)
        banner, seconds = tab.wait_until(BANNER, 20)
        if expect(banner, "broken save: no diagnostics banner within 20 s"):
            print(f"broken save: banner shown {seconds:.1f} s after the save", flush=True)
            expect(re.search(r"trex-store\.yaml:\d+:\d+: error: .*navgate", banner),
                   f"broken save: the banner does not show file:line:col and the message: {banner!r}")
            layout = tab.evaluate("""(() => {
                const banner = document.getElementById('quire-diagnostics').getBoundingClientRect();
                const phone = document.querySelector('.phone').getBoundingClientRect();
                return { bannerBottom: banner.bottom, phoneTop: phone.top, text: document.querySelector('.content').textContent };
            })()""")
            expect(layout["bannerBottom"] <= layout["phoneTop"], "broken save: the banner is not above the rendering")
            expect(nonce in layout["text"], "broken save: the last good rendering is gone")
            tab.screenshot(os.path.join(out, "broken-save.png"))
            check_blank(os.path.join(out, "broken-save.png"), "page")

        with open(source, "w") as file:
            file.write(original)
        cleared, _ = tab.wait_until(f"document.body && !document.body.textContent.includes({json.dumps(nonce)}) && {BANNER} === null", 20)
        expect(cleared, "fixed save: the preview did not return to the original text without a banner within 20 s"
               f" (watch: {' | '.join(watcher.lines[-6:])})")
        check_requests(tab, base)
        # The preview polls the status without its pages: status.json lists every page.
        polled = sorted({u.split("?")[0] for u in tab.requested_urls() if "/status/" in u})
        expect(polled == [f"{base}/trex/status/summary.json"], f"the preview polled {polled}, not status/summary.json alone")
    finally:
        watcher.stop()
        with open(source, "w") as file:
            file.write(original)
        tab.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dist", required=True)
    parser.add_argument("--pages", required=True)
    parser.add_argument("--quire", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(os.path.join(args.out, "sections"), exist_ok=True)
    server, base = serve(args.dist)
    try:
        with Chromium() as browser:
            tab = browser.new_tab()
            check_sample_pages(tab, base, args.dist, args.pages, args.out)
            check_planted(tab, base, args.out)
            check_status_pages(tab, base, args.dist, args.out)
            check_requests(tab, base)
            tab.close()
            check_hostile_json(browser, base, args.dist, args.out)
            check_live_reload(browser, base, args.quire, args.pages, args.dist, args.out)
    finally:
        server.shutdown()
    if failures:
        print(f"{len(failures)} preview check(s) failed", flush=True)
        return 1
    print(f"preview checks passed; screenshots in {args.out}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
