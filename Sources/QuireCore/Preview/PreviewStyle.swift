/// The style sheets: the previews' (`preview/preview.css` in each version) and the status
/// page's (inline). System fonts only: a web font would be a request leaving the server.
enum PreviewStyle {
    static let shared = """
        :root { --ink: #1c1c1e; --muted: #6e6e73; --line: #e5e5ea; --accent: #d4461b; --surface: #ffffff; --canvas: #eceef2; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: var(--canvas); }
        .toolbar { display: flex; flex-wrap: wrap; gap: 6px 16px; align-items: center; padding: 10px 16px; background: #1f2430; color: #e8eaf0; font-size: 13px; }
        .toolbar .brand { font-weight: 700; letter-spacing: .02em; }
        .toolbar .label { color: #9aa3b5; text-transform: uppercase; font-size: 11px; letter-spacing: .06em; }
        .toolbar code { font: 12px ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; background: #2e3544; padding: 2px 6px; border-radius: 4px; }
        .toolbar a { color: #9cc4ff; margin-inline-start: auto; }
        .banner { margin: 12px auto; max-width: 760px; padding: 10px 14px; border-radius: 10px; font-size: 14px; }
        .banner ul { margin: 6px 0 0; padding-inline-start: 20px; font: 13px/1.5 ui-monospace, Menlo, Consolas, monospace; word-break: break-word; }
        .banner summary { cursor: pointer; }
        .banner-error { background: #fdecea; color: #8a1c13; border: 1px solid #f5b5ad; }
        .banner-warning { background: #fff6dd; color: #6b4b00; border: 1px solid #f2d58a; }
        .banner-notice { background: #e8f0fe; color: #1a3d7c; border: 1px solid #b8cdf5; }

        """

    static let page =
        shared + """
            .stage { display: flex; justify-content: center; padding: 16px 8px 40px; }
            .phone { width: 390px; height: 844px; max-width: 100%; border: 12px solid #111; border-radius: 54px; background: #111; box-shadow: 0 20px 50px rgba(0,0,0,.25); overflow: hidden; }
            .screen { width: 100%; height: 100%; border-radius: 42px; background: var(--surface); overflow-y: auto; overflow-x: hidden; scrollbar-width: thin; overflow-wrap: anywhere; }
            .statusbar { position: sticky; top: 0; z-index: 2; display: flex; justify-content: space-between; align-items: center; height: 44px; padding: 0 26px; font-size: 14px; font-weight: 600; background: rgba(255,255,255,.92); }
            .notch { width: 110px; height: 28px; border-radius: 16px; background: #111; }
            .navbar { padding: 4px 18px 10px; border-bottom: 1px solid var(--line); }
            .navbar h1 { margin: 0; font-size: 26px; line-height: 1.2; }
            .content { padding-bottom: 32px; }
            .empty { padding: 24px 18px; color: var(--muted); }
            .section { margin: 16px 0; }
            .section-title { margin: 0 18px 10px; font-size: 19px; }
            .muted { color: var(--muted); font-size: 13px; margin: 2px 0 0; }
            .hero { position: relative; height: 230px; margin-top: -16px; background: linear-gradient(135deg, #39404f, #1c1f26); overflow: hidden; }
            .hero-image { position: absolute; inset: 0; width: 100%; height: 100%; object-fit: cover; }
            .hero .image-placeholder { position: absolute; inset: 0; height: 100%; border: 0; background: transparent; color: #c9ced8; align-items: flex-start; padding-top: 24px; }
            .hero-text { position: absolute; left: 0; right: 0; bottom: 0; padding: 40px 18px 16px; color: #fff; background: linear-gradient(transparent, rgba(0,0,0,.7)); }
            .hero-text h2 { margin: 0; font-size: 26px; line-height: 1.15; }
            .hero-text p { margin: 6px 0 0; font-size: 15px; opacity: .92; }
            .product-grid { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; padding: 0 18px; }
            .card { overflow-wrap: anywhere; background: var(--surface); border: 1px solid var(--line); border-radius: 14px; overflow: hidden; box-shadow: 0 1px 3px rgba(0,0,0,.06); }
            .card-body { padding: 8px 10px 10px; }
            .card h3 { margin: 0; font-size: 14px; line-height: 1.25; }
            .product-image { display: flex; width: 100%; aspect-ratio: 1; object-fit: cover; background: #f2f2f7; }
            .price { margin: 4px 0 2px; font-weight: 700; color: var(--accent); }
            .card-link { display: inline-block; margin-top: 4px; font-size: 13px; color: #0a63d1; text-decoration: none; }
            .unlinked { color: var(--muted); text-decoration: line-through; }
            .button.unlinked { color: #fff; background: #9a9ca3; }
            .strip { display: flex; gap: 12px; padding: 0 18px 6px; overflow-x: auto; scroll-snap-type: x mandatory; scroll-padding: 0 18px; scrollbar-width: none; }
            .strip > * { flex: 0 0 auto; scroll-snap-align: start; }
            .drill { width: 150px; }
            .drill-art { display: flex; align-items: center; justify-content: center; height: 90px; font-size: 40px; color: #fff; background: linear-gradient(135deg, var(--accent), #8f2a0d); }
            .cta { padding: 0 18px; text-align: center; }
            .button { display: block; padding: 14px 18px; border-radius: 14px; background: var(--accent); color: #fff; font-weight: 700; font-size: 16px; text-decoration: none; }
            .hint { margin: 6px 0 0; font-size: 12px; color: var(--muted); word-break: break-all; }
            .video { position: relative; margin: 0 18px; aspect-ratio: 16 / 9; border-radius: 14px; overflow: hidden; background: #000; display: flex; align-items: center; justify-content: center; }
            .video-poster { position: absolute; inset: 0; width: 100%; height: 100%; object-fit: cover; opacity: .8; }
            .play { position: relative; display: flex; align-items: center; justify-content: center; width: 64px; height: 64px; padding-left: 6px; border-radius: 50%; background: rgba(255,255,255,.9); color: #111; font-size: 26px; }
            .video-source { position: absolute; inset-inline-start: 10px; bottom: 8px; color: #ddd; font-size: 11px; }
            .video-meta { padding: 8px 18px 0; }
            .video-meta h3 { margin: 0; font-size: 16px; }
            .gallery-item { width: 260px; margin: 0; }
            .gallery-image { display: flex; width: 260px; height: 175px; object-fit: cover; border-radius: 12px; background: #f2f2f7; }
            .gallery-item figcaption { margin-top: 4px; font-size: 13px; color: var(--muted); }
            .divider { margin: 0 18px; border: 0; border-top: 1px solid var(--line); }
            .spacer { height: 24px; }
            .markdown { padding: 0 18px; overflow-wrap: break-word; }
            .markdown > :first-child { margin-top: 0; }
            .markdown > :last-child { margin-bottom: 0; }
            .markdown h1, .markdown h2, .markdown h3, .markdown h4 { line-height: 1.25; margin: 14px 0 6px; }
            .markdown pre { padding: 10px; border-radius: 8px; background: #f2f2f7; overflow-x: auto; }
            .markdown code { font: 13px ui-monospace, Menlo, Consolas, monospace; }
            .markdown blockquote { margin: 8px 0; padding-inline-start: 12px; border-inline-start: 3px solid var(--line); color: var(--muted); }
            .markdown img { max-width: 100%; border-radius: 8px; }
            .markdown a { color: #0a63d1; }
            .plain { white-space: pre-wrap; }
            .remote-image { display: inline-block; padding: 12px; border: 1px dashed #aeb4c0; border-radius: 8px; color: var(--muted); font-size: 12px; }
            .image-placeholder { display: flex; align-items: center; justify-content: center; text-align: center; border: 1px dashed #aeb4c0; color: var(--muted); font-size: 12px; background: repeating-linear-gradient(45deg, #f4f5f8, #f4f5f8 8px, #eceef3 8px, #eceef3 16px); }
            .announcement { display: flex; gap: 10px; margin: 0 18px; padding: 12px 14px; border-radius: 14px; border: 1px solid; }
            .announcement h3 { margin: 0 0 4px; font-size: 16px; }
            .announcement .markdown { padding: 0; }
            .tone-icon { font-size: 20px; line-height: 1.2; }
            .tone-info { background: #eaf2ff; border-color: #b9d3fb; color: #163f7a; }
            .tone-tip { background: #e9f8ee; border-color: #b3e2c2; color: #175c2f; }
            .tone-warning { background: #fff5db; border-color: #f0d38a; color: #6a4700; }
            .tone-promo { background: #f4edff; border-color: #d6c2fa; color: #4b2391; }
            .unknown { margin: 0 18px; padding: 14px; border: 2px dashed #b0b5c0; border-radius: 14px; color: #4a4f5a; background: #fafbfc; }
            .unknown p { margin: 0; }

            """

    static let status =
        shared + """
            .wrap { max-width: 1000px; margin: 0 auto; padding: 16px; }
            h1 { font-size: 22px; margin: 8px 0 4px; }
            h2 { font-size: 17px; margin: 24px 0 8px; }
            .summary { color: var(--muted); margin: 0; }
            table { width: 100%; border-collapse: collapse; background: var(--surface); border-radius: 10px; overflow: hidden; box-shadow: 0 1px 3px rgba(0,0,0,.06); font-size: 14px; }
            th, td { text-align: start; padding: 7px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
            th { background: #f6f7f9; font-weight: 600; }
            td.missing { color: #b0b5c0; }
            .bar { width: 120px; height: 8px; border-radius: 4px; background: var(--line); overflow: hidden; display: inline-block; vertical-align: middle; margin-inline-end: 6px; }
            .bar span { display: block; height: 100%; background: #2f9e58; }
            .bad { color: #b3261e; font-weight: 600; }
            .ok { color: #2f7d32; }
            .diagnostics { list-style: none; margin: 0; padding: 0; font: 13px/1.5 ui-monospace, Menlo, Consolas, monospace; }
            .diagnostics li { padding: 6px 10px; background: var(--surface); border-inline-start: 3px solid #b3261e; margin-bottom: 4px; word-break: break-word; }
            .diagnostics li.warning { border-inline-start-color: #d89b00; }
            .none { color: var(--muted); }
            code { font: 12px ui-monospace, Menlo, Consolas, monospace; }

            """
}
