/// The script of every page preview (`preview/preview.js`): it draws the page from the JSON apps
/// get, so the preview file itself is the same small document for every page (`PagePreview`).
///
/// Where things are comes from the addresses, not from the document: the version folder is the
/// one this script was loaded from, the locale and page id are the preview's own path below
/// `preview/`. It fetches `<locale>/<page_id>.json` of that version (a draft's or an unscheduled
/// page's `preview/<locale>/<page_id>.json` when `<html data-source="preview">`), follows `next`
/// through every part, and draws each section with DOM calls only (`textContent`, never markup
/// from content). Links become `href`s only when `https:`, `http:` or relative; images load only
/// from the version's own files, remote ones are a labelled placeholder. Nothing it requests
/// leaves the server.
///
/// Then it polls `status/summary.json` (shape in `PreviewScripts`; not `status.json`, which lists
/// every page), and reads it at once when the dashboard's event stream (`/api/events`, where the
/// editors' server has one) says the site was built: the diagnostics banner of the page, and
/// through `current/` a redraw when a newer version is published.
/// Through `versions/<v>/` it only says that a newer one exists. A navigate button links to the
/// preview of the page it names once that preview is found in the version (a `HEAD` request).
///
/// With `<html data-source="draft">` (the dashboard's preview frame) it fetches nothing: its
/// parent, from the same origin only, posts `{page, locale, pageID, assetRoot, serial}` (a
/// draft's page as the pipeline rendered it in memory) and it draws that the same way.
enum PreviewPageScript {
    static let source = setUp + "\n\n" + PreviewPageDrawing.source + "\n" + loading

    /// Where the preview is (version, locale, page id, from the addresses) and the DOM helpers
    /// both halves use.
    private static let setUp = #"""
        (function () {
          var root = document.documentElement;
          var script = document.currentScript;
          var versionRoot = new URL('..', script ? script.src : location.href).href;
          var own = decodeURIComponent(location.pathname);
          var ownURL = location.href.split(/[?#]/)[0];
          var where = ownURL.indexOf(versionRoot + 'preview/') === 0
            ? decodeURIComponent(ownURL.slice(versionRoot.length + 'preview/'.length)) : '';
          var slash = where.indexOf('/');
          var locale = slash > 0 ? where.slice(0, slash) : '';
          var pageID = slash > 0 ? where.slice(slash + 1).replace(/\.html$/, '') : '';
          var fromPreview = root.getAttribute('data-source') === 'preview';
          var fromDraft = root.getAttribute('data-source') === 'draft';
          var match = /^(.*?\/)(current|versions\/[^\/]+)\/preview\//.exec(own);
          var statusURL = match ? match[1] + 'status/summary.json' : null;
          var viaCurrent = match ? match[2] === 'current' : true;
          var rendered = match && !viaCurrent ? match[2].slice('versions/'.length) : null;
          var shown = null;
          function byId(id) { return document.getElementById(id); }
          function has(object, key) { return object && typeof object === 'object' && Object.prototype.hasOwnProperty.call(object, key); }
          function get(object, key) { return has(object, key) ? object[key] : null; }
          function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
          function text(value) {
            if (typeof value === 'string') return value;
            if (typeof value === 'number' || typeof value === 'boolean') return String(value);
            return null;
          }
          function el(tag, className, content) {
            var node = document.createElement(tag);
            if (className) node.className = className;
            if (content !== undefined && content !== null) node.textContent = content;
            return node;
          }
          function add(parent, tag, className, content) {
            if (content === null || content === '') return null;
            return parent.appendChild(el(tag, className, content));
          }
          function setText(id, value) { var node = byId(id); if (node && value) node.textContent = value; }
          setText('quire-page', pageID);
          setText('quire-locale', locale);
          if (rendered) setText('quire-version', rendered);
          if (match) byId('quire-status-link').setAttribute('href', match[1] + 'status/index.html');
        """#

    /// Where the page comes from and when it is drawn again: its parts, the navigate buttons' links,
    /// the status (diagnostics, a newer version, the pushed publish), and the dashboard's draft.
    private static let loading = #"""
          // A navigate button links to the preview of the page it names, once that preview is found
          // in this version and locale. Only page ids are asked for: the name is content.
          var pageIDPattern = /^[a-z0-9_-]+(\/[a-z0-9_-]+)*$/;
          function linkPages() {
            if (fromDraft) return;
            [].forEach.call(document.querySelectorAll('span.button[data-page]'), function (span) {
              var target = span.getAttribute('data-page');
              if (!pageIDPattern.test(target)) return;
              var href = versionRoot + 'preview/' + locale + '/' + target + '.html';
              fetch(href, { method: 'HEAD', cache: viaCurrent ? 'no-store' : 'default' }).then(function (response) {
                if (!response.ok || !span.parentNode) return;
                var a = el('a', 'button', span.textContent);
                a.setAttribute('href', href);
                span.parentNode.replaceChild(a, span);
              }).catch(function () {});
            });
          }

          // The page's parts, fetched in order; the other source once when this one is gone
          // (the page turned draft, or back, since this document was loaded).
          function source(preview) { return versionRoot + (preview ? 'preview/' : '') + locale + '/' + pageID + '.json'; }
          function fetchJSON(url) {
            return fetch(url, { cache: viaCurrent ? 'no-store' : 'default' }).then(function (response) {
              if (!response.ok) throw new Error(response.status === 404 ? 'missing' : 'HTTP ' + response.status);
              return response.json();
            });
          }
          function load(preview, retried) {
            var sections = [], first = null;
            function part(url, count) {
              return fetchJSON(url).then(function (page) {
                if (first === null) first = page;
                if (Array.isArray(get(page, 'sections'))) sections = sections.concat(page.sections);
                var next = text(get(page, 'next'));
                if (next && count < 1000) return part(new URL(next, url).href, count + 1);
              });
            }
            return part(source(preview), 1).then(function () {
              fromPreview = preview;
              drawPage(first, sections);
              root.setAttribute('data-drawn', rendered || 'yes');
            }, function (error) {
              if (!retried && error.message === 'missing') return load(!preview, true);
              missing(error.message === 'missing'
                ? 'This page is not in this version of the site.' : 'The page could not be loaded (' + error.message + ').');
            });
          }

          // Status: diagnostics, a newer version.
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
            var box = byId('quire-diagnostics');
            if (!Array.isArray(list)) list = [];
            var key = JSON.stringify(list);
            if (key === shownDiagnostics) return;
            shownDiagnostics = key;
            clear(box);
            if (list.length === 0) { box.hidden = true; return; }
            var errors = list.filter(function (d) { return !d || d.severity !== 'warning' && d.severity !== 'note'; });
            box.className = errors.length ? 'banner banner-error' : 'banner banner-warning';
            var heading = el('strong', null, errors.length
              ? 'The last save of this page failed. This is the last good version.'
              : 'The last build of this page has ' + list.length + (list.length === 1 ? ' warning.' : ' warnings.'));
            var items = el('ul');
            list.forEach(function (d) { add(items, 'li', null, line(d)) || items.appendChild(el('li')); });
            if (errors.length) {
              box.appendChild(heading);
              box.appendChild(items);
            } else {
              var details = box.appendChild(el('details'));
              details.appendChild(el('summary')).appendChild(heading);
              details.appendChild(items);
            }
            box.hidden = false;
          }
          function notice(message) {
            var box = byId('quire-notice');
            box.textContent = message;
            box.hidden = !message;
          }
          var drawing = fromDraft ? Promise.resolve() : load(fromPreview, false);
          // The newest version a status read so far named.
          var named = null;
          function apply(status) {
            showDiagnostics(get(get(status, 'page_diagnostics'), pageID));
            var live = viaCurrent ? (status.current || status.version) : (status.version || status.current);
            if (typeof live !== 'string' || !live) return;
            named = live;
            if (rendered === null || live === rendered) { rendered = live; setText('quire-version', live); notice(''); return; }
            if (!viaCurrent) { notice('A newer version, ' + live + ', is published. This preview shows ' + rendered + '.'); return; }
            // Through current/ the newest version is drawn in place: this document is the same for it.
            rendered = live;
            drawing = drawing.then(function () { return load(fromPreview, false); }).then(function () { setText('quire-version', live); });
          }
          var builtAt = null;
          // Resolves to whether the status is of a build not seen before.
          function fetchStatus() {
            return fetch(statusURL, { cache: 'no-store' })
              .then(function (response) { return response.ok ? response.json() : null; })
              .then(function (status) {
                if (!status || typeof status !== 'object') return false;
                var fresh = status.built_at !== builtAt;
                builtAt = status.built_at;
                return drawing.then(function () { apply(status); return fresh; });
              })
              .catch(function () { return false; });
          }
          function check() { fetchStatus().then(function () { setTimeout(check, 1500); }); }
          if (statusURL && !fromDraft) check();
          // Where the editors' server has the dashboard's event stream, a publish is pushed: the
          // status is read at once, and again every 25 ms until it names the version pushed (it
          // is written just after the publish, on a thread that yields to every other; a status
          // of another build than the last one read is not that one), for up to 10 s. Elsewhere
          // the poll above is all there is.
          function number(version) { return parseInt(String(version || '').replace(/^v/, ''), 10) || 0; }
          function pushed(version, until) {
            fetchStatus().then(function (fresh) {
              var done = version ? number(named) >= number(version) : fresh;
              if (!done && Date.now() < until) setTimeout(function () { pushed(version, until); }, 25);
            });
          }
          if (statusURL && !fromDraft && typeof EventSource === 'function') {
            new EventSource('/api/events').addEventListener('publish', function (event) {
              var data = null;
              try { data = JSON.parse(event.data); } catch (error) { return; }
              if (!data || data.site !== root.getAttribute('data-site')) return;
              pushed(typeof data.version === 'string' ? data.version : null, Date.now() + 10000);
            });
          }

          // The dashboard's draft: drawn from what the parent posts, never fetched.
          function drawDraft(event) {
            if (event.origin !== location.origin || event.source !== window.parent) return;
            var draft = event.data;
            if (!draft || typeof draft !== 'object') return;
            locale = text(draft.locale) || '';
            pageID = text(draft.pageID) || '';
            if (text(draft.assetRoot)) versionRoot = new URL(draft.assetRoot, location.href).href;
            setText('quire-page', pageID);
            setText('quire-locale', locale);
            setText('quire-version', 'draft');
            if (get(draft, 'page') && typeof draft.page === 'object') {
              drawPage(draft.page, Array.isArray(draft.page.sections) ? draft.page.sections : []);
              root.setAttribute('data-drawn', 'draft-' + (text(draft.serial) || '0'));
            } else {
              missing(text(draft.message) || 'Nothing to preview.');
            }
          }
          if (fromDraft) {
            window.addEventListener('message', drawDraft);
            window.parent.postMessage({ previewReady: true }, location.origin);
          }
        })();
        """#
}
