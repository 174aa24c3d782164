/// How the page preview script (`PreviewPageScript`) draws a page: each section as apps draw it,
/// from the JSON they get, with DOM calls only (`textContent`, never markup from content); links
/// only to `https:`, `http:` or relative URLs, images only from the version's own files. A part
/// of that one program, in its scope (it uses the helpers and addresses its start defines).
enum PreviewPageDrawing {
    static let source = #"""
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
        """#
}
