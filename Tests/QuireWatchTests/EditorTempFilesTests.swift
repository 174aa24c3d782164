import QuireCore
import QuireWatch
import Testing

@Suite("Editor temp names")
struct EditorTempFilesTests {
    @Test(
        "temp and lock names are ignored",
        arguments: [
            ".#store.yaml",  // emacs lock (a dangling symlink)
            "#store.yaml#",  // emacs auto-save
            ".store.yaml.swp", ".store.yaml.swx", "store.yaml.swo",  // vim swap
            "store.yaml~", "4913", "5036",  // vim backup and write probes
            "sedAb12Cd",  // sed -i
            "store.yaml___jb_tmp___", "store.yaml___jb_old___",  // JetBrains safe write
            ".store.yaml.Xy12Ab",  // rsync
            "store.yaml.tmp", "store.yaml.part", "store.yaml.crdownload",
            ".git", ".DS_Store", "~$store.docx",
            "STORE.YAML.TMP", "Notes.Bak", "store.yaml.kate-swp", "a___jb_tmp___b", "#",  // any case; anywhere
        ])
    func ignored(name: String) {
        #expect(EditorTempFiles.isIgnored(name))
    }

    @Test(
        "page, asset and translation names are kept",
        arguments: [
            "store.yaml", "range-safety.json", "site.yaml", "trex-banner.jpg", "fr.po", "4914", "2024", "l10n", "sedan.yaml",
            "swp.yaml", "temp", "a.swp.yaml", "jb_tmp.yaml", "café.yaml", "ÉTÉ.YAML",
        ])
    func kept(name: String) {
        #expect(!EditorTempFiles.isIgnored(name))
    }

    @Test("a path is ignored when any component is")
    func relativePaths() {
        #expect(EditorTempFiles.isIgnored(relativePath: ".git/index.lock"))
        #expect(EditorTempFiles.isIgnored(relativePath: "trex/.cache/a.yaml"))
        #expect(!EditorTempFiles.isIgnored(relativePath: "trex/guides/a.yaml"))
    }
}
