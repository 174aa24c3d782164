/// The only scripts previews and the status page carry: fixed text, never built from content,
/// allowed by their SHA-256 in each document's Content-Security-Policy, so a script injected
/// through content could not run even if it slipped past escaping. The previews' is the
/// version's `preview/preview.js` (loaded with that hash as its `integrity`); the status
/// page's is inline.
///
/// Both poll `dist/<site>/status/status.json`, which the build replaces after every run.
/// The shape they (and `StatusPage`) assume:
///
/// ```json
/// {
///   "site": "trex",
///   "version": "v000007",           // newest published version
///   "current": "v000007",           // what current/ points at (older while pinned)
///   "pinned": null,                 // or "v000005"
///   "built_at": "2025-01-01T12:00:00Z",   // changes on every build, failed ones too
///   "pages": {
///     "trex-store": {
///       "locales": ["en", "fr"],
///       "diagnostics": [            // of the last build of this page; [] when it is fine
///         {"text": "pages/trex/trex-store.yaml:3:9: error: title: ...", "file": "pages/trex/trex-store.yaml",
///          "line": 3, "column": 9, "message": "...", "severity": "error"}
///       ],
///       "preview": {"en": "../current/preview/en/trex-store.html"}   // relative to status/
///     }
///   },
///   "diagnostics": [ ... every diagnostic of the last build, same shape ... ],
///   "coverage": [{"locale": "fr", "translated": 10, "stale": 1, "missing": 2, "percent": 77}],
///   "history": [{"at": "...", "action": "publish", "from": "v000006", "to": "v000007", "reason": "...", "user": "..."}],
///   "scheduled": [ ... objects, shown as key: value ... ]
/// }
/// ```
enum PreviewScripts {
    /// Live reload and the diagnostics banner of a page preview. Reads from `<html>`:
    /// `data-version` (the version rendered, may be empty), `data-page-id`, `data-status-url`.
    /// The status URL is worked out from the preview's own path when it can be, because one
    /// file is reached both as `versions/<v>/preview/...` and as `current/preview/...`.
    /// Through `current/` a new version reloads the page; through a fixed version it only
    /// says that a newer one exists (reloading would show the same file forever).
    static let livePreview = """
        (function () {
          var root = document.documentElement;
          var rendered = root.getAttribute('data-version') || null;
          var pageID = root.getAttribute('data-page-id') || '';
          var match = /^(.*?\\/)(current|versions\\/[^\\/]+)\\/preview\\//.exec(location.pathname);
          var statusURL = match ? match[1] + 'status/status.json' : root.getAttribute('data-status-url');
          var viaCurrent = match ? match[2] === 'current' : true;
          var statusLink = document.getElementById('quire-status-link');
          if (match && statusLink) statusLink.setAttribute('href', match[1] + 'status/index.html');
          var versionLabel = document.getElementById('quire-version');
          function showVersion(version) { if (versionLabel && version) versionLabel.textContent = version; }
          // A fixed version's address names the version it shows.
          if (match && !viaCurrent) { rendered = rendered || match[2].slice('versions/'.length); showVersion(rendered); }
          function own(object, key) { return object && Object.prototype.hasOwnProperty.call(object, key) ? object[key] : null; }
          function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
          function line(d) {
            if (typeof d === 'string') return d;
            if (d && typeof d.text === 'string') return d.text;
            if (!d) return '';
            return (d.file || '') + ':' + (d.line || 1) + ':' + (d.column || 1) + ': ' + (d.severity || 'error') + ': ' + (d.message || '');
          }
          var shownDiagnostics = null;
          // Errors are spelled out; warnings fold into a <details> so they do not push the page away.
          // Redrawn only when the list changes, so an opened <details> stays open between polls.
          function showDiagnostics(list) {
            var box = document.getElementById('quire-diagnostics');
            if (!box) return;
            if (!Array.isArray(list)) list = [];
            var key = JSON.stringify(list);
            if (key === shownDiagnostics) return;
            shownDiagnostics = key;
            clear(box);
            if (list.length === 0) { box.hidden = true; return; }
            var errors = list.filter(function (d) { return !d || d.severity !== 'warning' && d.severity !== 'note'; });
            box.className = errors.length ? 'banner banner-error' : 'banner banner-warning';
            var heading = document.createElement('strong');
            heading.textContent = errors.length
              ? 'The last save of this page failed. This is the last good version.'
              : 'The last build of this page has ' + list.length + (list.length === 1 ? ' warning.' : ' warnings.');
            var items = document.createElement('ul');
            list.forEach(function (d) {
              var item = document.createElement('li');
              item.textContent = line(d);
              items.appendChild(item);
            });
            if (errors.length) {
              box.appendChild(heading);
              box.appendChild(items);
            } else {
              var details = document.createElement('details');
              var summary = document.createElement('summary');
              summary.appendChild(heading);
              details.appendChild(summary);
              details.appendChild(items);
              box.appendChild(details);
            }
            box.hidden = false;
          }
          function notice(text) {
            var box = document.getElementById('quire-notice');
            if (!box) return;
            box.textContent = text;
            box.hidden = !text;
          }
          function reloadFor(version) {
            var key = 'quire-reload-' + version, count = 0;
            try { count = Number(sessionStorage.getItem(key) || 0); sessionStorage.setItem(key, String(count + 1)); } catch (e) {}
            // A new address, not location.reload(): a version may share this file with an older one
            // (same content, older mtime), and a server that validates by mtime answers a reload's
            // If-Modified-Since with 304, leaving the stale page on screen.
            if (count < 3) {
              var next = new URL(location.href);
              next.searchParams.set('version', version);
              location.replace(next.href);
              return;
            }
            notice('Version ' + version + ' is published, but this page still shows ' + rendered + '. Reload once the server has it.');
          }
          function apply(status) {
            showDiagnostics(own(own(own(status, 'pages'), pageID), 'diagnostics'));
            var live = viaCurrent ? (status.current || status.version) : (status.version || status.current);
            if (typeof live !== 'string' || !live) return;
            if (rendered === null) { rendered = live; showVersion(live); return; }
            if (live === rendered) { notice(''); return; }
            if (viaCurrent) { reloadFor(live); return; }
            notice('A newer version, ' + live + ', is published. This preview shows ' + rendered + '.');
          }
          function check() {
            fetch(statusURL, { cache: 'no-store' })
              .then(function (response) { return response.ok ? response.json() : null; })
              .then(function (status) { if (status && typeof status === 'object') apply(status); })
              .catch(function () {})
              .then(function () { setTimeout(check, 1500); });
          }
          if (statusURL) check();
        })();
        """

    /// The status page: reloads when `status.json` (next to it) shows a different build.
    /// Reads `data-built-at` and `data-version` from `<html>`.
    static let statusRefresh = """
        (function () {
          var root = document.documentElement;
          var builtAt = root.getAttribute('data-built-at') || '';
          var version = root.getAttribute('data-version') || '';
          var first = null;
          function check() {
            fetch('status.json', { cache: 'no-store' })
              .then(function (response) { return response.ok ? response.text() : null; })
              .then(function (text) {
                if (text === null) return;
                var status = JSON.parse(text);
                var changed = builtAt
                  ? String(status.built_at || '') !== builtAt || String(status.version || '') !== version
                  : (first !== null && text !== first);
                if (first === null) first = text;
                if (changed) location.reload();
              })
              .catch(function () {})
              .then(function () { setTimeout(check, 2000); });
          }
          check();
        })();
        """

    /// The policies of the two documents, hashed once per process.
    static let livePreviewPolicy = contentSecurityPolicy(script: livePreview, styles: "'self'")
    static let statusRefreshPolicy = contentSecurityPolicy(script: statusRefresh, styles: "'unsafe-inline'")

    /// `'sha256-<base64>'` for a Content-Security-Policy `script-src`: it allows the script
    /// inline, or from a file whose `<script>` names the same hash in `integrity`.
    static func cspHash(_ script: String) -> String { "'" + integrity(script) + "'" }

    /// `sha256-<base64>` for a `<script integrity>` attribute.
    static func integrity(_ script: String) -> String {
        var hasher = SHA256()
        hasher.update(script)
        return "sha256-" + base64(hasher.finalizeBytes())
    }

    /// Fixed text with no `"` or `&`, so it goes into the `content` attribute as it is.
    static func contentSecurityPolicy(script: String, styles: String) -> String {
        "default-src 'none'; img-src 'self'; style-src \(styles); script-src \(cspHash(script)); "
            + "connect-src 'self'; base-uri 'none'; form-action 'none'"
    }

    static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value = UInt32(0)
            for (offset, byte) in chunk.enumerated() { value |= UInt32(byte) << (16 - 8 * offset) }
            for position in 0..<4 {
                if position <= chunk.count {
                    out.append(alphabet[Int((value >> (18 - 6 * position)) & 0x3F)])
                } else {
                    out.append(UInt8(ascii: "="))
                }
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
