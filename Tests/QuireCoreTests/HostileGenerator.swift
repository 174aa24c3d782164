import Foundation
import Glibc
import Testing

@testable import QuireCore

/// The hostile inputs git cannot hold or should not (a 100 MB file, 10,000-deep nesting,
/// symbolic links, FIFOs, devices, unreadable files), made in the case's temporary site.
enum HostileGenerator {
    static func prepare(_ name: String, in work: HostileWorkspace) throws {
        let site = work.siteRoot
        func write(_ relative: String, _ bytes: some Sequence<UInt8>) throws {
            let path = "\(site)/\(relative)"
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
        func symlink(_ relative: String, to target: String) throws {
            try FileManager.default.createSymbolicLink(atPath: "\(site)/\(relative)", withDestinationPath: target)
        }
        switch name {
        case "huge-file":
            // 100 MB of valid-looking YAML: refused by size before a byte is parsed.
            let path = "\(site)/news.yaml"
            try #require(FileManager.default.createFile(atPath: path, contents: nil))
            let handle = try #require(FileHandle(forWritingAtPath: path))
            defer { try? handle.close() }
            try handle.write(contentsOf: Data("title: News\nsections:\n".utf8))
            let chunk = Data(String(repeating: "  - type: divider\n", count: 58_255).utf8)  // ~1 MB
            for _ in 0..<100 { try handle.write(contentsOf: chunk) }
        case "deep-nesting-json":
            try write(
                "news.json",
                Array(#"{"title": "News", "sections": "#.utf8) + Array(repeating: UInt8(ascii: "["), count: 10_000)
                    + Array(repeating: UInt8(ascii: "]"), count: 10_000) + Array("}\n".utf8))
        case "deep-nesting-yaml":
            try write(
                "news.yaml",
                Array("title: News\nsections: ".utf8) + Array(repeating: UInt8(ascii: "["), count: 10_000)
                    + Array(repeating: UInt8(ascii: "]"), count: 10_000) + [0x0A])
        case "enormous-string":
            try write(
                "news.yaml",
                Array("title: News\nsections:\n  - type: markdown_block\n    id: body\n    body: \"".utf8)
                    + Array(repeating: UInt8(ascii: "a"), count: 1_000_000) + Array("\"\n".utf8))
        case "too-many-sections":
            try write("news.yaml", Array(("title: News\nsections:\n" + String(repeating: "  - type: divider\n", count: 501)).utf8))
        case "symlink-etc-passwd":
            try symlink("news.yaml", to: "/etc/passwd")
        case "symlink-other-site":
            try symlink("news.yaml", to: "../other/home.yaml")
        case "symlink-folder-other-site":
            try symlink("mirror", to: "../other")
        case "symlink-loop":
            try symlink("loop-a.yaml", to: "loop-b.yaml")
            try symlink("loop-b.yaml", to: "loop-a.yaml")
            try symlink("guides/self", to: ".")
        case "symlink-dangling":
            try symlink("news.yaml", to: "/nonexistent/quire-test")
        case "symlink-asset-etc-passwd":
            try symlink("assets/passwd.txt", to: "/etc/passwd")
        case "symlink-site-yaml":
            // The site file itself swapped for a link: the site stops, v1 stays current.
            try FileManager.default.removeItem(atPath: "\(site)/site.yaml")
            try symlink("site.yaml", to: "../other/home.yaml")
        case "hard-link-etc-passwd":
            // A hard link is a regular file: nothing marks it as outside. /etc is usually another
            // file system (link fails: EXDEV) in containers; then a copy stands in, same outcome.
            if link("/etc/passwd", "\(site)/l10n/fr/news.yaml") != 0 {
                try FileManager.default.copyItem(atPath: "/etc/passwd", toPath: "\(site)/l10n/fr/news.yaml")
            }
        case "fifo":
            #expect(mkfifo("\(site)/news.yaml", 0o644) == 0)
        case "fifo-translation":
            #expect(mkfifo("\(site)/l10n/fr/home.yaml.tmp.yaml", 0o644) == 0)
            try FileManager.default.removeItem(atPath: "\(site)/l10n/fr/home.yaml")
            #expect(mkfifo("\(site)/l10n/fr/home.yaml", 0o644) == 0)
        case "device-file":
            // /dev/zero as a page (the test runs only where `canMakeDevices`).
            #expect(mknod("\(site)/news.yaml", S_IFCHR | 0o644, makedev(1, 5)) == 0, "mknod: \(String(cString: strerror(errno)))")
        case "unreadable-file":
            // chmod 000: root reads it anyway (tests run as root: expected.txt); anyone else gets
            // the permission error (expected-nonroot.txt).
            try write("news.yaml", Array("title: News\nsections: []\n".utf8))
            chmod("\(site)/news.yaml", 0)
        case "deep-folders":
            let folder = (1...40).map { "d\($0)" }.joined(separator: "/")
            try write("\(folder)/news.yaml", Array("title: News\nsections: []\n".utf8))
        case "emacs-lock-file":
            // Emacs lock files are dangling links named .#name: an editor at work, not an attack.
            try symlink(".#home.yaml", to: "root@host.1234:1700000000")
        case "vanishing-file":
            // Gone before the build: the translation it had is now for a page that does not exist.
            try FileManager.default.removeItem(atPath: "\(site)/home.yaml")
        default:
            break
        }
    }

    /// Whether this process may make a device file (CAP_MKNOD), tried once in a scratch folder.
    static let canMakeDevices: Bool = {
        let probe = NSTemporaryDirectory() + "quire-mknod-probe-\(UUID().uuidString)"
        guard mknod(probe, S_IFCHR | 0o600, makedev(1, 5)) == 0 else { return false }
        unlink(probe)
        return true
    }()

    private static func makedev(_ major: UInt32, _ minor: UInt32) -> dev_t {
        dev_t(major & 0xfff) << 8 | dev_t(minor & 0xff) | (dev_t(major & ~0xfff) << 32) | (dev_t(minor & ~0xff) << 12)
    }
}
