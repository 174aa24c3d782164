/// The only scripts previews and the status page carry: fixed text, never built from content,
/// allowed by their SHA-256 in each document's Content-Security-Policy, so a script injected
/// through content could not run even if it slipped past escaping. The previews' is the
/// version's `preview/preview.js` (`PreviewPageScript`, loaded with that hash as its
/// `integrity`); the status page's is inline.
///
/// Both poll `dist/<site>/status/summary.json`, which the build replaces after every run with
/// `status.json`: the same object without `"pages"`, with `"page_diagnostics"` (page id to the
/// `"diagnostics"` of its entry in `"pages"`, for the pages that have some) instead. The shape
/// of `status.json` they (and `StatusPage`) assume:
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
    /// The status page: reloads when `summary.json` (next to it) shows a different build.
    /// Reads `data-built-at` and `data-version` from `<html>`.
    static let statusRefresh = """
        (function () {
          var root = document.documentElement;
          var builtAt = root.getAttribute('data-built-at') || '';
          var version = root.getAttribute('data-version') || '';
          var first = null;
          function check() {
            fetch('summary.json', { cache: 'no-store' })
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
    static let livePreviewPolicy = contentSecurityPolicy(script: PreviewPageScript.source, styles: "'self'")
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
