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
    static let source = #"""
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

          // URLs from content.
          function clean(url) { return typeof url === 'string' && url !== '' && url.trim() === url && !/[\x00-\x1f\x7f]/.test(url); }
          function scheme(url) { var m = /^([A-Za-z0-9+.\-]+):/.exec(url); return m ? m[1].toLowerCase() : null; }
          function host(url) { var m = /^[^:\/?#]*:\/\/([^\/?#]+)/.exec(url); return m ? m[1] : url; }
          function linkTarget(url, extra) {
            if (!clean(url) || url.indexOf('//') === 0) return null;
            var s = scheme(url);
            return s === null || s === 'https' || s === 'http' || (extra && extra.indexOf(s) >= 0) ? url : null;
          }
          function image(url) {
            if (!clean(url)) return { kind: 'invalid' };
            if (url.charAt(0) === '/' && url.charAt(1) !== '/') return { kind: 'local', src: versionRoot + url.slice(1) };
            var s = scheme(url);
            return s === 'https' || s === 'http' ? { kind: 'remote', host: host(url) } : { kind: 'invalid' };
          }
          function picture(parent, url, alt, className) {
            var found = text(url) === null ? null : image(text(url));
            if (found && found.kind === 'local') {
              var img = el('img', className);
              img.setAttribute('loading', 'lazy');
              img.setAttribute('src', found.src);
              img.setAttribute('alt', text(alt) || '');
              return parent.appendChild(img);
            }
            var box = parent.appendChild(el('div', className + ' image-placeholder'));
            var label = box.appendChild(el('span'));
            if (!found) { label.textContent = 'no image'; return box; }
            if (found.kind === 'invalid') { label.textContent = 'image not shown'; return box; }
            box.setAttribute('title', text(url));
            label.appendChild(document.createTextNode('remote image'));
            label.appendChild(el('br'));
            label.appendChild(document.createTextNode(found.host));
            return box;
          }
          function link(parent, url, label, className) {
            var href = linkTarget(text(url) || '');
            var node;
            if (href !== null) {
              node = el('a', className, label);
              node.setAttribute('rel', 'noopener noreferrer');
              node.setAttribute('target', '_blank');
              node.setAttribute('href', href);
            } else {
              node = el('span', className + ' unlinked', label);
              node.setAttribute('title', 'not a link: ' + (text(url) || ''));
            }
            return parent.appendChild(node);
          }

          // Markdown fields, from their block tree (`<field>_blocks`).
          function inlines(parent, list) {
            (Array.isArray(list) ? list : []).forEach(function (node) {
              switch (get(node, 'type')) {
                case 'text': parent.appendChild(document.createTextNode(text(node.text) || '')); break;
                case 'emphasis': inlines(parent.appendChild(el('em')), node.inlines); break;
                case 'strong': inlines(parent.appendChild(el('strong')), node.inlines); break;
                case 'code': add(parent, 'code', null, text(node.text)); break;
                case 'line_break': parent.appendChild(el('br')); break;
                case 'link':
                  var href = linkTarget(text(node.url) || '', ['mailto', 'tel']);
                  var a = parent.appendChild(el('a'));
                  if (href !== null) { a.setAttribute('href', href); a.setAttribute('rel', 'noopener noreferrer'); }
                  if (text(node.title)) a.setAttribute('title', text(node.title));
                  inlines(a, node.inlines);
                  break;
                case 'image':
                  var found = image(text(node.url) || '');
                  if (found.kind === 'local') {
                    var img = parent.appendChild(el('img'));
                    img.setAttribute('src', found.src);
                    img.setAttribute('alt', text(node.alt) || '');
                    if (text(node.title)) img.setAttribute('title', text(node.title));
                  } else {
                    add(parent, 'span', 'remote-image', found.kind === 'remote' ? 'remote image · ' + found.host : 'image not shown');
                  }
                  break;
              }
            });
          }
          function blocks(parent, list, tight) {
            (Array.isArray(list) ? list : []).forEach(function (node) {
              switch (get(node, 'type')) {
                case 'paragraph': inlines(tight ? parent : parent.appendChild(el('p')), node.inlines); break;
                case 'heading':
                  var level = Math.min(6, Math.max(1, Number(node.level) || 1));
                  inlines(parent.appendChild(el('h' + level)), node.inlines);
                  break;
                case 'quote': blocks(parent.appendChild(el('blockquote')), node.blocks, false); break;
                case 'list':
                  var list = parent.appendChild(el(node.ordered === true ? 'ol' : 'ul'));
                  if (node.ordered === true && typeof node.start === 'number' && node.start !== 1) list.setAttribute('start', String(node.start));
                  (Array.isArray(node.items) ? node.items : []).forEach(function (item) {
                    blocks(list.appendChild(el('li')), item, node.tight === true);
                  });
                  break;
                case 'code':
                  var code = parent.appendChild(el('pre')).appendChild(el('code', null, text(node.text) || ''));
                  if (text(node.language)) code.className = 'language-' + text(node.language);
                  break;
                case 'thematic_break': parent.appendChild(el('hr')); break;
              }
            });
          }
          function markdown(parent, section, field) {
            var box = parent.appendChild(el('div', 'markdown'));
            if (Array.isArray(get(section, field + '_blocks'))) blocks(box, section[field + '_blocks'], false);
            else add(box, 'p', 'plain', text(get(section, field)));
            return box;
          }

          // Sections, as apps draw them.
          var tones = { info: '\u2139', tip: '\u2713', warning: '\u26a0', promo: '\u2605' };
          function humanized(id) {
            var words = id.split(/[-_]+/).filter(function (w) { return w; });
            if (words.length > 1 && words[0].length >= 6 && /^[0-9a-fA-F]+$/.test(words[0]) && /[0-9]/.test(words[0])) words.shift();
            return words.map(function (w) { return w.charAt(0).toUpperCase() + w.slice(1); }).join(' ');
          }
          var draw = {
            hero_banner: function (box, s) {
              var hero = box.appendChild(el('div', 'hero'));
              picture(hero, get(s, 'image_url'), get(s, 'alt'), 'hero-image');
              var words = hero.appendChild(el('div', 'hero-text'));
              add(words, 'h2', null, text(get(s, 'title')));
              add(words, 'p', null, text(get(s, 'subtitle')));
            },
            markdown_block: function (box, s) { markdown(box, s, 'body'); },
            product_grid: function (box, s) {
              add(box, 'h2', 'section-title', text(get(s, 'title')));
              var grid = box.appendChild(el('div', 'product-grid'));
              (Array.isArray(s.items) ? s.items : []).forEach(function (item) {
                var card = grid.appendChild(el('article', 'card product'));
                if (text(get(item, 'id')) !== null) card.setAttribute('data-item-id', text(item.id));
                picture(card, get(item, 'image_url'), get(item, 'alt'), 'product-image');
                var body = card.appendChild(el('div', 'card-body'));
                add(body, 'h3', null, text(get(item, 'title')));
                add(body, 'p', 'price', text(get(item, 'price')));
                if (typeof get(item, 'external_url') === 'string') link(body, item.external_url, 'View product \u2197', 'card-link');
              });
            },
            drill_carousel: function (box, s) {
              add(box, 'h2', 'section-title', text(get(s, 'title')));
              var strip = box.appendChild(el('div', 'strip'));
              (Array.isArray(s.drill_ids) ? s.drill_ids : []).forEach(function (drill) {
                var id = text(drill) || '';
                var card = strip.appendChild(el('article', 'card drill'));
                card.appendChild(el('div', 'drill-art', '\u25ce'));
                var body = card.appendChild(el('div', 'card-body'));
                add(body, 'h3', null, humanized(id));
                add(body, 'p', 'muted', id);
              });
            },
            cta_button: function (box, s) {
              var label = text(get(s, 'label')) || '', destination = text(get(s, 'destination')) || '';
              var cta = box.appendChild(el('div', 'cta'));
              if (get(s, 'action') === 'external') {
                link(cta, destination, label, 'button');
                add(cta, 'p', 'hint', linkTarget(destination) === null
                  ? 'not a usable link: ' + destination : 'opens ' + host(destination) + ' in the browser');
              } else {
                var button = cta.appendChild(el('span', 'button', label));
                button.setAttribute('role', 'button');
                button.setAttribute('data-page', destination.charAt(0) === '/' ? destination.slice(1) : destination);
                add(cta, 'p', 'hint', 'navigates in the app to ' + destination);
              }
            },
            // A feed's card: its button opens the page's preview, as a navigate button does (`linkPages`).
            page_link: function (box, s) {
              var card = box.appendChild(el('article', 'card product'));
              if (text(get(s, 'image_url')) !== null) picture(card, s.image_url, '', 'product-image');
              var body = card.appendChild(el('div', 'card-body'));
              add(body, 'h3', null, text(get(s, 'title')));
              add(body, 'p', null, text(get(s, 'summary')));
              add(body, 'p', 'muted', text(get(s, 'date')));
              var open = body.appendChild(el('span', 'button', 'Open'));
              open.setAttribute('role', 'button');
              open.setAttribute('data-page', text(get(s, 'page_id')) || '');
            },
            video_embed: function (box, s) {
              var video = box.appendChild(el('div', 'video'));
              var poster = text(get(s, 'poster_url')) === null ? null : image(text(s.poster_url));
              if (poster && poster.kind === 'local') {
                var img = video.appendChild(el('img', 'video-poster'));
                img.setAttribute('alt', '');
                img.setAttribute('src', poster.src);
              }
              var play = video.appendChild(el('span', 'play', '\u25b6'));
              play.setAttribute('aria-hidden', 'true');
              var url = text(get(s, 'url'));
              if (url !== null) add(video, 'span', 'video-source', linkTarget(url) === null ? 'not a usable link' : host(url));
              var meta = box.appendChild(el('div', 'video-meta'));
              add(meta, 'h3', null, text(get(s, 'title')));
              add(meta, 'p', 'muted', text(get(s, 'caption')));
              if (url !== null) link(meta, url, 'Open video \u2197', 'card-link');
            },
            image_gallery: function (box, s) {
              add(box, 'h2', 'section-title', text(get(s, 'title')));
              var strip = box.appendChild(el('div', 'strip gallery'));
              (Array.isArray(s.images) ? s.images : []).forEach(function (item) {
                var figure = strip.appendChild(el('figure', 'gallery-item'));
                picture(figure, get(item, 'image_url'), get(item, 'alt'), 'gallery-image');
                add(figure, 'figcaption', null, text(get(item, 'caption')));
              });
            },
            divider: function (box, s) { box.appendChild(get(s, 'style') === 'space' ? el('div', 'spacer') : el('hr', 'divider')); },
            announcement: function (box, s) {
              var tone = has(tones, get(s, 'tone')) ? s.tone : 'info';
              var note = box.appendChild(el('div', 'announcement tone-' + tone));
              note.appendChild(el('span', 'tone-icon', tones[tone])).setAttribute('aria-hidden', 'true');
              var body = note.appendChild(el('div'));
              add(body, 'h3', null, text(get(s, 'title')));
              markdown(body, s, 'body');
            }
          };
          function unknown(box, s, type) {
            var card = box.appendChild(el('div', 'unknown'));
            card.appendChild(el('p')).appendChild(el('strong', null, type ? 'Unknown section type \u201c' + type + '\u201d' : 'Section without a type'));
            add(card, 'p', 'muted', 'Apps that do not know this type skip it.');
            var fields = Object.keys(s).filter(function (k) { return k !== 'type' && k !== 'id'; });
            if (fields.length) add(card, 'p', 'muted', 'fields: ' + fields.join(', '));
          }
          function drawPage(page, sections) {
            var title = text(get(page, 'title')) || pageID;
            root.lang = locale;
            root.dir = get(page, 'direction') === 'rtl' ? 'rtl' : 'ltr';
            document.title = title + ' \u00b7 ' + locale + ' \u00b7 preview';
            var heading = byId('quire-title');
            heading.textContent = title;
            var content = byId('quire-content');
            clear(content);
            if (!sections.length) add(content, 'p', 'empty', 'This page has no sections.');
            sections.forEach(function (s, index) {
              if (!s || typeof s !== 'object' || Array.isArray(s)) s = {};
              var type = text(get(s, 'type')) || '';
              var box = content.appendChild(el('section', 'section'));
              box.setAttribute('data-section-type', type);
              box.setAttribute('data-section-id', text(get(s, 'id')) || '');
              box.setAttribute('data-section-index', String(index));
              if (has(draw, type)) draw[type](box, s); else unknown(box, s, type);
            });
            linkPages();
          }
          function missing(message) {
            var content = byId('quire-content');
            clear(content);
            add(content, 'p', 'empty', message);
            root.setAttribute('data-drawn', 'missing');
          }
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
