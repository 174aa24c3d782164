/// The nginx rules that serve `dist/`, in one place: `deploy/nginx.conf` is their text with the
/// production values (`NginxRules.production`; a test keeps the file equal to it), and
/// `quire watch --serve` runs nginx with the same text for its own folder, ports and auth service.
///
/// The public server gives apps `current/` (each page's TTL) and `versions/` (immutable) and
/// refuses everything private; the editors' server gives status pages and previews, never `state/`.
public struct NginxRules: Sendable, Equatable {
    /// The dist folder nginx serves (absolute).
    public var dist: String
    /// What the public server's `listen` says: `8080`, `127.0.0.1:8080`, `[::1]:8080`.
    public var publicListen: String
    public var editorsListen: String
    /// The app's auth service, which answers 2xx when a request's token grants an audience; nil:
    /// audience variants are never served.
    public var auth: AuthService?
    /// The dashboard's editing service (`quire watch --serve`): its SCGI socket, an upstream of
    /// the editors' server only. Nil: no dashboard (deploy/nginx.conf).
    public var dashboardSocket: String?

    public init(dist: String, publicListen: String, editorsListen: String, auth: AuthService?) {
        self.dist = dist
        self.publicListen = publicListen
        self.editorsListen = editorsListen
        self.auth = auth
    }

    public static let production = NginxRules(
        dist: "/srv/quire/dist", publicListen: "8080", editorsListen: "127.0.0.1:8081",
        auth: AuthService(scheme: "http", server: "127.0.0.1:9000", path: "/auth"))

    /// Where the audience check goes: `http://host:port/path[?query]` split for `proxy_pass`.
    public struct AuthService: Sendable, Equatable {
        public var scheme: String
        /// `host:port` (an upstream server: a host name is resolved when nginx loads its configuration).
        public var server: String
        /// Path and query; the audience is added as `audience=<name>`.
        public var path: String

        public init(scheme: String, server: String, path: String) {
            self.scheme = scheme
            self.server = server
            self.path = path
        }

        var passURL: String { "\(scheme)://quire_auth\(path)\(path.contains("?") ? "&" : "?")audience=$quire_audience" }
    }

    /// The file types both servers send (the public server answers everything else as JSON).
    static let types = """
                text/html html;
                application/json json;
                image/jpeg jpg jpeg;
                image/png png;
                image/svg+xml svg;
                text/css css;
                text/javascript js;
        """

    /// A path as an nginx string: quoted when it holds a space or `#`. Paths with characters nginx
    /// would read as syntax, variables or glob patterns are refused by `unservablePathCharacter`.
    static func string(_ path: String) -> String {
        path.contains(where: { $0 == " " || $0 == "#" }) ? "\"\(path)\"" : path
    }

    /// The first character of `path` nginx cannot be given safely, if any.
    public static func unservablePathCharacter(_ path: String) -> Character? {
        path.first(where: { "\"'\\$;{}*?[]".contains($0) || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true })
    }

    /// The text of `deploy/nginx.conf` for these values: what goes in nginx's `http {}` block.
    public var text: String {
        let root = Self.string(dist)
        let ttlMaps = Self.string("\(dist)/*/current/http/nginx-ttl.map")
        return """
            # Serving Quire's dist/ with nginx. Include this in the http {} block, or run it as a whole
            # config with `nginx -c` after wrapping it in one. `quire watch --serve` runs nginx with these
            # same rules (both come from Sources/QuireCore/Serving/NginxRules.swift; a test keeps this file
            # equal to them). Replace /srv/quire/dist with your dist folder; nginx workers (www-data) must be
            # able to read it: quire publishes folders 0755 and files 0644, and the folders above dist/ must
            # be 0755 too.

            # Per-page TTLs: every published version holds http/nginx-ttl.map, entries of this map
            # ("/<site>/current/<locale>/<page>.json" <seconds>;), made from each page's `ttl`. nginx reads
            # included files when it loads its configuration: reload it after each publish, e.g. with
            # `publish_hook: nginx -s reload` in site.yaml. Pages not (yet) in the map get the default.
            # Page paths are long keys, and a site has one per page and locale: room for both.
            map_hash_bucket_size 256;
            map_hash_max_size 65536;
            map $uri $quire_max_age {
                default 300;
                include \(ttlMaps);
            }
            \(authUpstream)
            # The public server: what apps fetch.
            server {
                listen \(publicListen);
                root \(root);
                default_type application/json;
                charset utf-8;
                charset_types application/json;

                # nginx's ETag is mtime + size: two versions of a page published within one second with the
                # same size would share it (ARCHITECTURE.md, "Known traps"). Page URLs under current/ change content in
                # place, so validators are off and clients revalidate by TTL only.
                etag off;
                # Last-Modified is still sent (core nginx cannot drop it), but requests are never answered
                # 304 from it: an If-Modified-Since header is ignored.
                if_modified_since off;
                # A page not (yet) published is an answer, not an error worth a log line.
                log_not_found off;

                # Never public: live state, publish lock and history, staging, shared trees by id, previews,
                # build records.
                location ~ "^/[^/]+/(status|state|staging|trees)(/|$)" { return 404; }
                location ~ "^/[^/]+/(current|versions/[^/]+)/(preview|build\\.json|http/)" { return 404; }

            \(audienceVariants)
                # Versioned URLs never change: cache forever.
                location ~ "^/[^/]+/versions/" {
                    add_header Cache-Control "public, max-age=31536000, immutable" always;
                }

                # current/ moves on every publish: each page's own `ttl` (site.yaml `ttl`, else the page's),
                # from the map above; each page's JSON carries the same `ttl` for apps that cache in-process.
                location ~ "^/[^/]+/current/" {
                    add_header Cache-Control "public, max-age=$quire_max_age" always;
                }

                location / { return 404; }
            }

            # The internal server for editors and ops: previews, status pages, everything. Keep it on
            # loopback or behind your VPN.
            server {
                listen \(editorsListen);
                root \(root);
                etag off;
                if_modified_since off;
                add_header Cache-Control "no-store" always;
                # A browser's favicon.ico and the like are not errors worth a log line.
                log_not_found off;
            \(dashboardLocations)
                location ~ "/state(/|$)" { return 404; }
                location / { autoindex on; }
                types {
            \(Self.types)
                }
            }

            """
    }

    /// The dashboard on the editors' server: `/` leads to it, `/dashboard/` and `/api/` go to its
    /// service over SCGI (the event stream unbuffered), CodeMirror comes from Debian's package.
    /// The socket's path is checked by the caller (`unservablePathCharacter`).
    private var dashboardLocations: String {
        guard let socket = dashboardSocket else { return "" }
        let pass = """
                    scgi_pass unix:\(Self.string(socket));
                    scgi_param SCGI 1;
                    scgi_param REQUEST_METHOD $request_method;
                    scgi_param REQUEST_URI $request_uri;
                    scgi_param REQUEST_SCHEME $scheme;
                    scgi_param SERVER_NAME $server_name;
            """
        return """
                # The dashboard: its editing service listens on a Unix socket only nginx's workers can open.
                location = / { return 302 /dashboard/; }
                location ^~ /dashboard/codemirror/ {
                    alias /usr/share/javascript/codemirror/;
                    add_header X-Content-Type-Options nosniff always;
                    add_header Cache-Control "no-store" always;
                }
                location ^~ /dashboard/ {
            \(pass)
                }
                location ^~ /api/ {
                    client_max_body_size 10m;
            \(pass)
                }
                location = /api/events {
            \(pass)
                    scgi_buffering off;
                    scgi_read_timeout 1h;
                }

            """
    }

    /// The upstream that names the auth service (nginx resolves a host name in it at load time;
    /// a `proxy_pass` with variables could only resolve one through a `resolver`).
    private var authUpstream: String {
        guard let auth else { return "" }
        return """

            # The app's auth service, asked about every audience variant (below).
            upstream quire_auth {
                server \(auth.server);
            }

            """
    }

    private var audienceVariants: String {
        let variants = #"location ~ "^/[^/]+/(current|versions/[^/]+)/.+@([a-z0-9_-]+)\.json$""#
        guard let auth else {
            return """
                    # Audience variants (page@audience.json) hold sections only some users may see. A path
                    # is not access control, and no auth service is named here: they are never served.
                    \(variants) { return 404; }

                """
        }
        return """
                # Audience variants (page@audience.json) hold sections only some users may see. A path is not
                # access control: gate them behind the app's login. The auth service answers 2xx when the
                # request's token grants the audience named in the file name.
                \(variants) {
                    set $quire_audience $2;
                    auth_request /_quire_auth;
                    add_header Cache-Control "private, max-age=60" always;
                }
                location = /_quire_auth {
                    internal;
                    proxy_pass \(auth.passURL);
                    proxy_set_header Host \(auth.server);
                    proxy_pass_request_body off;
                    proxy_set_header Content-Length "";
                    proxy_set_header Authorization $http_authorization;
                }

            """
    }
}

extension NginxRules {
    /// A whole configuration around `text` for `nginx -c`: in the foreground, one worker, its pid
    /// file and temporary folders in `folder`, errors on stderr. `user`: the user (and group) the
    /// worker runs as when nginx starts as root (else nginx's default, nobody, could not read dist/).
    public func standalone(folder: String, user: (name: String, group: String)?) -> String {
        let path = { (name: String) in Self.string("\(folder)/\(name)") }
        let temporaries = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
            .map { "    \($0)_temp_path \(path($0));" }.joined(separator: "\n")
        return """
            # Written by `quire watch --serve`: the rules of deploy/nginx.conf with this watcher's
            # folder, ports and auth service.
            daemon off;
            \(user.map { "user \($0.name) \($0.group);\n" } ?? "")worker_processes 1;
            pid \(path("nginx.pid"));
            error_log stderr warn;
            events { worker_connections 512; }
            http {
                access_log off;
            \(temporaries)
                types {
            \(Self.types)
                }

            \(text)
            }

            """
    }
}
