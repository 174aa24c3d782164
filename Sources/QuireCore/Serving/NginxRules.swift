/// The nginx rules that serve `dist/`, in one place: `deploy/nginx.conf` is their text with the
/// production values (`NginxRules.production`; a test keeps the file equal to it), and
/// `quire watch --serve` runs nginx with the same text for its own folder, ports and auth services.
///
/// The apps' server gives `current/` (each page's TTL) and `versions/` (immutable): page JSON and
/// media, nothing private. The editors' server gives status pages, previews and the pages apps
/// get, nothing else: no listings, staging, shared trees, build records or state. Both keep nginx
/// inside `dist/` (a link is followed only when it and its target have one owner: Quire's own
/// links), send `nosniff`, and give every response a Content-Security-Policy; an asset is served
/// sandboxed, so an SVG's script never runs on either origin.
///
/// Headers are set once per server from variables the locations set: nginx drops a server's
/// `add_header` lines in any location that has one of its own.
public struct NginxRules: Sendable, Equatable {
    /// The dist folder nginx serves (absolute).
    public var dist: String
    /// What the public server's `listen` says: `8080`, `127.0.0.1:8080`, `[::1]:8080`.
    public var publicListen: String
    public var editorsListen: String
    /// The app's auth service, which answers 2xx when a request's token grants an audience; nil:
    /// audience variants are never served.
    public var auth: AuthService?
    /// The editors' sign-in (`--editors-auth`): asked about every request on the editors' server.
    public var editorsAuth: EditorsAuth?
    /// The dashboard's editing service (`quire watch --serve`): its SCGI socket, an upstream of
    /// the editors' server only. Nil: no dashboard (deploy/nginx.conf).
    public var dashboardSocket: String?

    public init(dist: String, publicListen: String, editorsListen: String, auth: AuthService?, editorsAuth: EditorsAuth? = nil) {
        self.dist = dist
        self.publicListen = publicListen
        self.editorsListen = editorsListen
        self.auth = auth
        self.editorsAuth = editorsAuth
    }

    public static let production = NginxRules(
        dist: "/srv/quire/dist", publicListen: "8080", editorsListen: "127.0.0.1:8081",
        auth: AuthService(scheme: "http", server: "127.0.0.1:9000", path: "/auth"))

    /// Where an auth check goes: `http://host:port/path[?query]` split for `proxy_pass`.
    public struct AuthService: Sendable, Equatable {
        public var scheme: String
        /// `host:port` (an upstream server: a host name is resolved when nginx loads its configuration).
        public var server: String
        /// Path and query.
        public var path: String

        public init(scheme: String, server: String, path: String) {
            self.scheme = scheme
            self.server = server
            self.path = path
        }

        /// The URL for `proxy_pass` through the upstream named `upstream`, with `parameter` added to the query.
        func passURL(upstream: String, adding parameter: String? = nil) -> String {
            guard let parameter else { return "\(scheme)://\(upstream)\(path)" }
            return "\(scheme)://\(upstream)\(path)\(path.contains("?") ? "&" : "?")\(parameter)"
        }
    }

    /// The editors' sign-in service (as oauth2-proxy's `/oauth2/auth`): 2xx lets a request in, and
    /// its answer names the user and their groups in two headers.
    public struct EditorsAuth: Sendable, Equatable {
        public var service: AuthService
        public var userHeader: String
        public var groupsHeader: String

        public init(service: AuthService, userHeader: String = "X-Auth-Request-User", groupsHeader: String = "X-Auth-Request-Groups") {
            self.service = service
            self.userHeader = userHeader
            self.groupsHeader = groupsHeader
        }

        /// A header name nginx can name as a variable: letters, digits and `-`.
        public static func isHeaderName(_ name: String) -> Bool {
            !name.isEmpty
                && name.utf8.allSatisfy {
                    $0 == UInt8(ascii: "-") || ($0 < 0x80 && Character(UnicodeScalar($0)).isLetter) || (0x30...0x39).contains($0)
                }
        }

        static func variable(_ header: String) -> String {
            "$upstream_http_" + header.lowercased().replacingOccurrences(of: "-", with: "_")
        }
    }

    /// The types of what the servers send: page JSON, the editors' documents, and the assets' media
    /// types (`MediaType`, the same list the build checks assets against).
    static let pageTypes = ["application/json json;"]
    static let editorTypes = ["text/html html;", "text/css css;", "text/javascript js;"]
    static var mediaTypes: [String] { MediaType.all.map { "\($0.mime) \($0.extensions.joined(separator: " "));" } }

    static func typesBlock(_ lines: [String], indent: String) -> String {
        "\(indent)types {\n" + lines.map { "\(indent)    \($0)\n" }.joined() + "\(indent)}"
    }

    /// Policies. Page JSON and everything not named below: nothing runs. Assets: drawn, never run
    /// (`sandbox` gives an SVG opened as a document an opaque origin and no script). The status page
    /// and previews: their own policies (`PreviewScripts`), as in their `<meta>`, plus who may frame them.
    static let nothingRunsPolicy = "default-src 'none'; sandbox"
    static let assetPolicy =
        "default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'; font-src 'self'; sandbox"
    static var statusPolicy: String { PreviewScripts.statusRefreshPolicy + "; frame-ancestors 'self'" }
    static var previewPolicy: String { PreviewScripts.livePreviewPolicy + "; frame-ancestors 'self'" }

    /// A path as an nginx string: quoted when it holds a space or `#`. Paths with characters nginx
    /// would read as syntax, variables or glob patterns are refused by `unservablePathCharacter`.
    static func string(_ path: String) -> String {
        path.contains(where: { $0 == " " || $0 == "#" }) ? NginxQuoting.quoted(path) : path
    }

    /// The first character of `path` nginx cannot be given safely, if any.
    public static func unservablePathCharacter(_ path: String) -> Character? {
        path.first(where: { "\"'\\$;{}*?[]".contains($0) || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true })
    }

    /// Assets: media only (the build checks each file's bytes against its name), drawn but never
    /// run. Nested in a location that sets their caching, or on its own.
    /// `cacheControl`: what the apps' server sends (nested locations run only their own `set`s).
    static func assets(indent: String, cacheControl: String? = nil) -> String {
        """
        \(indent)# Assets: media only (the build checks each file's bytes against its name), drawn, never run.
        \(indent)location ~ "^/[^/]+/\(versionFolder)/assets/" {
        \(typesBlock(mediaTypes, indent: indent + "    "))
        \(indent)    \(cacheControl.map { "set $quire_cache_control \"\($0)\"; " } ?? "")\(csp(assetPolicy))
        \(indent)}
        """
    }

    static let immutable = "public, max-age=31536000, immutable"
    static let pageTTL = "public, max-age=$quire_max_age"

    /// What a location of the apps' server sets for the server's headers: its caching (nil: none)
    /// and the policy that nothing runs. Set in each location, never for the whole server: the
    /// auth check's subrequest shares the request's variables, and a server-wide `set` runs again
    /// for it, undoing the location's.
    static func policy(_ cacheControl: String?) -> String {
        "set $quire_cache_control \"\(cacheControl ?? "")\"; \(csp())"
    }

    /// What a location sets for the server's Content-Security-Policy header.
    static func csp(_ policy: String = nothingRunsPolicy) -> String { "set $quire_csp \"\(policy)\"; " }

    /// A version's folder in a URL: `current` or `versions/<id>`.
    static let versionFolder = "(current|versions/[^/]+)"

    /// The text of `deploy/nginx.conf` for these values: what goes in nginx's `http {}` block.
    public var text: String {
        let root = Self.string(dist)
        let ttlMaps = Self.string("\(dist)/*/current/http/nginx-ttl.map")
        return """
            # Serving Quire's dist/ with nginx. Include this in the http {} block, or run it as a whole
            # config with `nginx -c` after wrapping it in one. `quire watch --serve` runs nginx with these
            # same rules (both come from Sources/QuireCore/Serving/NginxRules.swift; a test keeps this file
            # equal to them). Replace /srv/quire/dist with your dist folder. Run nginx's workers as an
            # unprivileged user (www-data): quire publishes folders 0755 and files 0644, and the folders
            # above dist/ must be 0755 too.

            # No version in the Server header; redirects (a folder without its slash) keep the host the
            # client asked for instead of one built from the Host header.
            server_tokens off;
            absolute_redirect off;

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
            \(upstreams)
            # The public server: what apps fetch.
            server {
                listen \(publicListen);
                root \(root);
                # Links are followed only where the link and its target have one owner: quire's own
                # (current, a version's folders), never one to a file elsewhere on the machine.
                disable_symlinks if_not_owner from=$document_root;
            \(Self.typesBlock(Self.pageTypes, indent: "    "))
                default_type application/octet-stream;
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

                add_header Cache-Control $quire_cache_control always;
                add_header Content-Security-Policy $quire_csp always;
                add_header X-Content-Type-Options nosniff always;

                # Never public: live state, publish lock and history, staging, shared trees by id, previews,
                # build records.
                location ~ "^/[^/]+/(status|state|staging|trees)(/|$)" { \(Self.policy(nil))return 404; }
                location ~ "^/[^/]+/\(Self.versionFolder)/(preview|build\\.json|http/)" { \(Self.policy(nil))return 404; }

            \(audienceVariants)
                # Versioned URLs never change: cache forever.
                location ~ "^/[^/]+/versions/" {
                    \(Self.policy(Self.immutable))
            \(Self.assets(indent: "        ", cacheControl: Self.immutable))
                }

                # current/ moves on every publish: each page's own `ttl` (site.yaml `ttl`, else the page's),
                # from the map above; each page's JSON carries the same `ttl` for apps that cache in-process.
                location ~ "^/[^/]+/current/" {
                    \(Self.policy(Self.pageTTL))
            \(Self.assets(indent: "        ", cacheControl: Self.pageTTL))
                }

                location / { \(Self.policy(nil))return 404; }
            }

            # The editors' server: status pages, previews, the pages apps get. Keep it on loopback, or
            # behind a sign-in (`quire watch --editors-auth`).
            server {
                listen \(editorsListen);
                root \(root);
                disable_symlinks if_not_owner from=$document_root;
            \(Self.typesBlock(Self.pageTypes + Self.editorTypes, indent: "    "))
                default_type application/octet-stream;
                charset utf-8;
                charset_types application/json;
                etag off;
                if_modified_since off;
                # A browser's favicon.ico and the like are not errors worth a log line.
                log_not_found off;
            \(editorsGate)
                add_header Cache-Control "no-store" always;
                add_header Content-Security-Policy $quire_csp always;
                add_header X-Content-Type-Options nosniff always;
                add_header Referrer-Policy no-referrer always;

                # Never here: the publish lock and history, staging, shared trees by id, build records
                # (machine paths), the cache header files.
                location ~ "^/[^/]+/(state|staging|trees)(/|$)" { \(Self.csp())return 404; }
                location ~ "^/[^/]+/\(Self.versionFolder)/(build\\.json|http/)" { \(Self.csp())return 404; }
                location ~ "^/[^/]+/status/" { \(Self.csp(Self.statusPolicy))}
                location ~ "^/[^/]+/\(Self.versionFolder)/preview/" { \(Self.csp(Self.previewPolicy))}
            \(Self.assets(indent: "    "))
                location ~ "^/[^/]+/\(Self.versionFolder)/.+\\.json$" { \(Self.csp())}
            \(editorsAuthLocation)\(dashboardLocations)
                location / { \(Self.csp())return 404; }
            }

            """
    }

    /// The dashboard on the editors' server, behind its sign-in like the rest: `/` leads to it,
    /// `/dashboard/` and `/api/` go to its service over SCGI (the event stream unbuffered) with the
    /// signed-in user, and the service sends its own policy (`$quire_csp` empty adds none);
    /// CodeMirror comes from Debian's package. The socket's path is checked by the caller
    /// (`unservablePathCharacter`).
    private var dashboardLocations: String {
        guard let socket = dashboardSocket else { return "" }
        let pass = """
                    set $quire_csp "";
                    scgi_pass unix:\(Self.string(socket));
                    scgi_param SCGI 1;
                    scgi_param REQUEST_METHOD $request_method;
                    scgi_param REQUEST_URI $request_uri;
                    scgi_param REQUEST_SCHEME $scheme;
                    scgi_param QUIRE_USER $quire_user;
                    scgi_param QUIRE_GROUPS $quire_groups;
            """
        return """
                # The dashboard: its editing service listens on a Unix socket only nginx's workers can open.
                location = / { \(Self.csp())return 302 /dashboard/; }
                location ^~ /dashboard/codemirror/ {
                    \(Self.csp())alias /usr/share/javascript/codemirror/;
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

    /// The upstreams that name the auth services (nginx resolves a host name in one at load time;
    /// a `proxy_pass` with variables could only resolve one through a `resolver`).
    private var upstreams: String {
        var text = ""
        if let auth {
            text += """

                # The app's auth service, asked about every audience variant (below).
                upstream quire_auth {
                    server \(auth.server);
                }

                """
        }
        if let editorsAuth {
            text += """

                # The editors' sign-in, asked about every request on the editors' server.
                upstream quire_editors_auth {
                    server \(editorsAuth.service.server);
                }

                """
        }
        return text
    }

    /// Who may use the editors' server, and who they are: `$quire_user` and `$quire_groups`
    /// (empty without a sign-in: the local user).
    private var editorsGate: String {
        guard let editorsAuth else {
            return """
                    # No sign-in: this server must listen on loopback only (quire watch refuses another address).
                    set $quire_user "";
                    set $quire_groups "";

                """
        }
        return """
                # Every request is asked of the sign-in service first; its answer names the user.
                auth_request /_quire_editors_auth;
                auth_request_set $quire_user \(EditorsAuth.variable(editorsAuth.userHeader));
                auth_request_set $quire_groups \(EditorsAuth.variable(editorsAuth.groupsHeader));

            """
    }

    private var editorsAuthLocation: String {
        guard let editorsAuth else { return "" }
        return """
                location = /_quire_editors_auth {
                    internal;
                    proxy_pass \(editorsAuth.service.passURL(upstream: "quire_editors_auth"));
                    proxy_set_header Host \(editorsAuth.service.server);
                    proxy_pass_request_body off;
                    proxy_set_header Content-Length "";
                    proxy_set_header X-Original-URI $request_uri;
                    proxy_set_header X-Original-Method $request_method;
                }

            """
    }

    private var audienceVariants: String {
        let variants = #"location ~ "^/[^/]+/(current|versions/[^/]+)/.+@([a-z0-9_-]+)\.json$""#
        guard let auth else {
            return """
                    # Audience variants (page@audience.json) hold sections only some users may see. A path
                    # is not access control, and no auth service is named here: they are never served.
                    \(variants) { \(Self.policy(nil))return 404; }

                """
        }
        return """
                # Audience variants (page@audience.json) hold sections only some users may see. A path is not
                # access control: gate them behind the app's login. The auth service answers 2xx when the
                # request's token grants the audience named in the file name.
                \(variants) {
                    set $quire_audience $2;
                    auth_request /_quire_auth;
                    \(Self.policy("private, max-age=60"))
                }
                location = /_quire_auth {
                    internal;
                    proxy_pass \(auth.passURL(upstream: "quire_auth", adding: "audience=$quire_audience"));
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
    /// file and temporary folders in `folder`, errors on stderr. `user`: the unprivileged user (and
    /// group) the worker runs as when nginx starts as root.
    public func standalone(folder: String, user: (name: String, group: String)?) -> String {
        let path = { (name: String) in Self.string("\(folder)/\(name)") }
        let temporaries = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
            .map { "    \($0)_temp_path \(path($0));" }.joined(separator: "\n")
        return """
            # Written by `quire watch --serve`: the rules of deploy/nginx.conf with this watcher's
            # folder, ports and auth services.
            daemon off;
            \(user.map { "user \($0.name) \($0.group);\n" } ?? "")worker_processes 1;
            pid \(path("nginx.pid"));
            error_log stderr warn;
            events { worker_connections 512; }
            http {
                access_log off;
            \(temporaries)

            \(text)
            }

            """
    }
}
