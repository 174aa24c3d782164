import Foundation
import Testing

/// `quire l10n export | import | status`, run as the built binary on a copy of the fixture site
/// `shop` (pages `store`, `guides/safety`; fr complete but one stale and one missing string, es
/// and fr-CA partial, fr-CA -> fr -> en).
@Suite struct L10nCommandTests {
    // MARK: status

    @Test func statusTableMatchesTheFixture() throws {
        let workspace = try L10nWorkspace()
        defer { workspace.remove() }
        let run = try workspace.quire(["l10n", "status"])
        #expect(run.status == 0, "\(run.stderr)")
        let rows = run.stdout.split(separator: "\n").map {
            $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        }
        #expect(
            rows == [
                "site locale translated stale missing total percent fallback chain",
                "shop en 8 0 0 8 100.0% en",
                "shop fr 6 1 1 8 75.0% fr -> en",
                "shop es 1 0 7 8 12.5% es -> en",
                "shop fr-CA 1 0 7 8 12.5% fr-CA -> fr -> en",
            ])
    }

    @Test func statusJSONMatchesWhatABuildRecords() throws {
        let workspace = try L10nWorkspace()
        defer { workspace.remove() }
        let status = try workspace.quire(["l10n", "status", "--format", "json"])
        #expect(status.status == 0, "\(status.stderr)")
        let sites =
            try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])["sites"] as? [[String: Any]]
        let locales = try #require(sites?.first?["locales"] as? [[String: Any]])
        let fr = try #require(locales.first { $0["locale"] as? String == "fr" })
        #expect(fr["translated"] as? Int == 6 && fr["stale"] as? Int == 1 && fr["missing"] as? Int == 1)
        let frCA = try #require(locales.first { $0["locale"] as? String == "fr-CA" })
        #expect(frCA["chain"] as? [String] == ["fr-CA", "fr", "en"])

        // The same numbers as the manifest of a real build.
        let build = try workspace.quire(["build", "--dist", workspace.dist])
        #expect(build.status == 0, "\(build.stderr)")
        let manifest = try #require(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: workspace.path("dist/shop/current/manifest.json")))) as? [String: Any])
        let built = try #require(manifest["coverage"] as? [[String: Any]])
        for (fromStatus, fromBuild) in zip(locales, built) {
            for field in ["locale", "translated", "stale", "missing"] {
                #expect("\(fromStatus[field] ?? "-")" == "\(fromBuild[field] ?? "+")", "\(field) of \(fromBuild["locale"] ?? "?")")
            }
        }
    }

    // MARK: export

    @Test(arguments: ["xliff12", "xliff20", "po", "json"])
    func exportWritesEveryPageAndImportsBackUnchanged(format: String) throws {
        let workspace = try L10nWorkspace()
        defer { workspace.remove() }
        let export = try workspace.quire([
            "l10n", "export", "--site", "shop", "--locale", "fr", "--format", format, "--out", workspace.path("out"),
        ])
        #expect(export.status == 0, "\(export.stderr)")
        let fileExtension = format.hasPrefix("xliff") ? "xlf" : format
        let files = ["out/store.\(fileExtension)", "out/guides/safety.\(fileExtension)"]
        #expect(export.stdout.split(separator: "\n").map(String.init) == files.map { workspace.path($0) }.sorted())
        let store = try workspace.read(files[0])
        // Key, source text, current translation and the stale/new states are all there; in XLIFF,
        // the link's markup as inline codes around its text.
        let source =
            [
                "xliff12": "Read the <bpt id=\"1\" ctype=\"link\">[</bpt>rules<ept id=\"1\">](https://example.com/rules)</ept> before",
                "xliff20": "Read the <pc id=\"1\" type=\"link\" dataRefStart=\"d1\" dataRefEnd=\"d2\" canDelete=\"no\">rules</pc> before",
            ][format] ?? "Read the [rules](https://example.com/rules) before your first match."
        for expected in ["why.body", source, "Voir tous les exercices"] {
            #expect(store.contains(expected), "\(expected) in \(format)")
        }
        let safety = try workspace.read(files[1])
        #expect(safety.contains("rules.body") && safety.contains("Treat every firearm"))

        let before = try workspace.quire(["l10n", "status"]).stdout
        let imported = try workspace.quire(["l10n", "import"] + files.map { workspace.path($0) } + ["--site", "shop"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(!imported.stderr.contains("error:"), "\(imported.stderr)")
        #expect(workspace.exists("pages/shop/l10n/fr/store.\(fileExtension)"))
        #expect(workspace.exists("pages/shop/l10n/fr/guides/safety.\(fileExtension)"))
        #expect(try workspace.quire(["l10n", "status"]).stdout == before, "an unchanged export changes nothing")
    }

    @Test func poExportPassesMsgfmtCheck() throws {
        let workspace = try L10nWorkspace()
        defer { workspace.remove() }
        for locale in ["fr", "es", "fr-CA"] {
            let export = try workspace.quire([
                "l10n", "export", "--site", "shop", "--locale", locale, "--format", "po", "--out", workspace.path("out/\(locale)"),
            ])
            #expect(export.status == 0, "\(export.stderr)")
            for file in ["store.po", "guides/safety.po"] {
                let check = try CommandRun.run(
                    try CommandRun.tool("msgfmt"), ["--check", "-o", "/dev/null", workspace.path("out/\(locale)/\(file)")])
                #expect(check.status == 0, "msgfmt --check \(locale)/\(file): \(check.stderr)")
            }
        }
    }

    @Test func exportDefaultsToL10nExportFolder() throws {
        let workspace = try L10nWorkspace()
        defer { workspace.remove() }
        let export = try workspace.quire(["l10n", "export", "--site", "shop", "--locale", "es"])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(workspace.exists("l10n-export/shop/es/store.xlf"))
        #expect(try workspace.read("l10n-export/shop/es/store.xlf").contains("target-language=\"es\""))
    }

    @Test func onlyMissingAndStaleFilters() throws {
        let workspace = try L10nWorkspace()
        defer { workspace.remove() }
        let both = try workspace.quire([
            "l10n", "export", "--site", "shop", "--locale", "fr", "--format", "json", "--only", "missing,stale", "--out",
            workspace.path("both"),
        ])
        #expect(both.status == 0, "\(both.stderr)")
        let store = try jsonKeys(workspace.path("both/store.json"))
        #expect(store == ["why.body"], "only the stale string of store")
        #expect(try jsonKeys(workspace.path("both/guides/safety.json")) == ["rules.body"], "only the missing string of safety")
        #expect(try workspace.read("both/store.json").contains("\"state\": \"stale\""))

        let missing = try workspace.quire([
            "l10n", "export", "--site", "shop", "--locale", "fr", "--format", "json", "--only", "missing", "--out",
            workspace.path("missing"),
        ])
        #expect(missing.status == 0)
        #expect(!workspace.exists("missing/store.json"), "store has nothing missing in fr: no file")
        #expect(try jsonKeys(workspace.path("missing/guides/safety.json")) == ["rules.body"])

        let bad = try workspace.quire(["l10n", "export", "--site", "shop", "--locale", "fr", "--only", "untranslated"])
        #expect(bad.status == 2)
    }

    @Test func exportRefusesTheDefaultLocaleAndUnknownFormats() throws {
        let workspace = try L10nWorkspace()
        defer { workspace.remove() }
        #expect(try workspace.quire(["l10n", "export", "--site", "shop", "--locale", "en"]).status == 2)
        #expect(try workspace.quire(["l10n", "export", "--site", "shop", "--locale", "de"]).status == 2)
        #expect(try workspace.quire(["l10n", "export", "--site", "shop", "--locale", "fr", "--format", "tmx"]).status == 2)
    }

    // MARK: import

    /// XLIFF 1.2 export -> translate-toolkit xliff2po -> a translator fills a msgstr -> po2xliff
    /// -> quire l10n import -> quire build publishes the translation.
    @Test func roundTripThroughTranslateToolkitPublishes() throws {
        let workspace = try L10nWorkspace()
        defer { workspace.remove() }
        let export = try workspace.quire([
            "l10n", "export", "--site", "shop", "--locale", "es", "--format", "xliff12", "--out", workspace.path("out"),
        ])
        #expect(export.status == 0, "\(export.stderr)")
        try FileManager.default.createDirectory(atPath: workspace.path("tool"), withIntermediateDirectories: true)
        let toPO = try CommandRun.run(try CommandRun.tool("xliff2po"), [workspace.path("out/store.xlf"), workspace.path("tool/store.po")])
        try #require(toPO.status == 0, "xliff2po: \(toPO.stderr)")
        var po = try workspace.read("tool/store.po")
        let untranslated = "msgid \"Browse All Drills\"\nmsgstr \"\""
        try #require(po.contains(untranslated), "\(po)")
        po = po.replacingOccurrences(of: untranslated, with: "msgid \"Browse All Drills\"\nmsgstr \"Ver todos los ejercicios\"")
        try workspace.write("tool/store.po", po)
        let toXLIFF = try CommandRun.run(
            try CommandRun.tool("po2xliff"), [workspace.path("tool/store.po"), workspace.path("tool/store.xlf")])
        try #require(toXLIFF.status == 0, "po2xliff: \(toXLIFF.stderr)")

        // po2xliff writes no target language: --locale says it; the page comes from `original`.
        let imported = try workspace.quire(["l10n", "import", workspace.path("tool/store.xlf"), "--site", "shop", "--locale", "es"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(workspace.exists("pages/shop/l10n/es/store.xlf"))
        let status = try workspace.quire(["l10n", "status"]).stdout
        #expect(status.contains("es               2      0        6"), "\(status)")

        let build = try workspace.quire(["build", "--dist", workspace.dist])
        #expect(build.status == 0, "\(build.stderr)")
        let page = try workspace.read("dist/shop/current/es/store.json")
        #expect(page.contains("Ver todos los ejercicios"))
        #expect(page.contains("Tienda"), "the earlier es translation still applies")
    }

    @Test func importRefusesADroppedLinkAndPlaceholderWithPositions() throws {
        let workspace = try L10nWorkspace()
        defer { workspace.remove() }
        try workspace.write(
            "bad/store.yaml",
            """
            "@locale": es
            title: Tienda
            why.body: Lea las reglas antes de su primer partido.
            promo.title: Los miembros ahorran
            browse.label: Ver todos los ejercicios

            """)
        let run = try workspace.quire(["l10n", "import", workspace.path("bad/store.yaml"), "--site", "shop"])
        #expect(run.status == 1)
        let file = workspace.path("bad/store.yaml")
        #expect(
            run.stderr.contains(
                "\(file):3:1: error: why.body: the translation drops the link 'https://example.com/rules': keep the links of the source text"
            ), "\(run.stderr)")
        #expect(
            run.stderr.contains(
                "\(file):4:1: error: promo.title: the translation drops {percent}: keep the placeholders of the source text"),
            "\(run.stderr)")
        #expect(try workspace.read("pages/shop/l10n/es/store.yaml") == "title: Tienda\n", "nothing written")
    }

    @Test func importReportsUnknownKeysAndEmptyTextAndXLIFFPositions() throws {
        let workspace = try L10nWorkspace()
        defer { workspace.remove() }
        try workspace.write(
            "bad/store.xlf",
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="es">
              <file id="f1" original="store">
                <unit id="gone.title">
                  <segment><source>Old</source><target>Viejo</target></segment>
                </unit>
                <unit id="promo.body">
                  <segment><source>Sign in to see **member** pricing.</source><target> </target></segment>
                </unit>
              </file>
            </xliff>

            """)
        let run = try workspace.quire(["l10n", "import", workspace.path("bad/store.xlf"), "--site", "shop"])
        #expect(run.status == 1)
        let file = workspace.path("bad/store.xlf")
        #expect(run.stderr.contains("\(file):4:5: warning: gone.title: unknown key"), "\(run.stderr)")
        #expect(run.stderr.contains("\(file):7:5: error: promo.body: the translation is empty"), "\(run.stderr)")
        #expect(!workspace.exists("pages/shop/l10n/es/store.xlf"))
    }

    @Test func importTakesThePageFromTheFileNameAndRefusesAMismatchedLocale() throws {
        let workspace = try L10nWorkspace()
        defer { workspace.remove() }
        try workspace.write("in/guides/safety.json", "{\"rules.body\": \"## Les règles\\nConsidérez toute arme comme chargée.\\n\"}\n")
        let named = try workspace.quire(["l10n", "import", workspace.path("in/guides/safety.json"), "--site", "shop", "--locale", "fr"])
        #expect(named.status == 0, "\(named.stderr)")
        #expect(workspace.exists("pages/shop/l10n/fr/guides/safety.json"))
        #expect(try workspace.quire(["l10n", "status"]).stdout.contains("shop  fr               7      1        0"))

        try workspace.write("in/store.po", try workspace.read("pages/shop/l10n/fr/guides/safety.po"))
        let mismatch = try workspace.quire(["l10n", "import", workspace.path("in/store.po"), "--site", "shop", "--locale", "es"])
        #expect(mismatch.status == 1)
        #expect(mismatch.stderr.contains("the file says it is for locale 'fr', not 'es'"), "\(mismatch.stderr)")

        try workspace.write("in/nothing.json", "{\"title\": \"Rien\"}\n")
        let unknown = try workspace.quire(["l10n", "import", workspace.path("in/nothing.json"), "--site", "shop", "--locale", "fr"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("cannot tell which page the file translates"), "\(unknown.stderr)")
    }

    /// An export made with --only holds some keys: importing it over a file of the same name
    /// would lose the others, so it is refused unless --replace.
    @Test func importRefusesToLoseTranslationsWithoutReplace() throws {
        let workspace = try L10nWorkspace()
        defer { workspace.remove() }
        let export = try workspace.quire([
            "l10n", "export", "--site", "shop", "--locale", "fr", "--format", "po", "--only", "missing", "--out", workspace.path("out"),
        ])
        #expect(export.status == 0)
        var po = try workspace.read("out/guides/safety.po")
        po = po.replacingOccurrences(of: "msgstr \"\"\n\n", with: "msgstr \"\"\n").replacingOccurrences(
            of: "\"Treat every firearm as if it is loaded.\\n\"\nmsgstr \"\"",
            with: "\"Treat every firearm as if it is loaded.\\n\"\nmsgstr \"## Les règles\\n\"\n\"Considérez toute arme comme chargée.\\n\""
        )
        try workspace.write("out/guides/safety.po", po)
        let refused = try workspace.quire(["l10n", "import", workspace.path("out/guides/safety.po"), "--site", "shop"])
        #expect(refused.status == 1, "\(refused.stderr)\n\(po)")
        #expect(refused.stderr.contains("would lose its 2 translations of 'title', 'back.label'"), "\(refused.stderr)")
        let replaced = try workspace.quire(["l10n", "import", workspace.path("out/guides/safety.po"), "--site", "shop", "--replace"])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try workspace.read("pages/shop/l10n/fr/guides/safety.po").contains("Considérez toute arme"))
    }

    private func jsonKeys(_ path: String) throws -> [String] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        return object.keys.filter { !$0.hasPrefix("@") }.sorted()
    }
}
