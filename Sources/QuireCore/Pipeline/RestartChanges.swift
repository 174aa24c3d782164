import Synchronization

/// Which files of a site differ from what a stopped watcher recorded (`RestartCache`), named as
/// a watcher's change set names them (absolute paths): files whose bytes hash otherwise or
/// cannot be read, files it did not record, and recorded files that are gone. A page source or
/// translation file whose stamp is the one recorded (`FileStamp`) is unchanged without being
/// read; every other one, and every asset, is read and hashed, on every core. Site settings are
/// not looked at here: their digest is the cache's context.
///
/// Besides, any other file that the scan's or the last build's diagnostics name (a stray file
/// the scan warns about, or one whose warning is gone): the delta gives it the scan's.
enum RestartChanges {
    /// `skipping`: the drill catalog's page id (data, in the settings' digest, not a page);
    /// `displayRoot`: how diagnostics name the site folder.
    static func paths(
        in inventory: SiteInventory, skipping: String?, cache: RestartCache, diagnostics: [Diagnostic], displayRoot: String,
        reader: SourceFileReader
    ) -> Set<String> {
        var files: [(path: String, recorded: Digest?, stamp: FileStamp?)] = []
        files.reserveCapacity(cache.sources.count + cache.translations.count + inventory.assets.count)
        for (pageID, sources) in inventory.pages where pageID != skipping {
            for source in sources {
                let cached = cache.sources[source.path]
                files.append((source.path, cached?.digest, cached?.stamp))
            }
        }
        for translation in inventory.translationsByPage.values.joined() {
            let cached = cache.translations[translation.file.path]
            files.append((translation.file.path, cached?.digest, cached?.stamp))
        }
        for asset in inventory.assets.values { files.append((asset.path, cache.assetDigests[asset.path], nil)) }

        // In runs of files per task: a file is a microsecond of work, or a few.
        let run = 64
        let found = Mutex<[String]>([])
        WideConcurrentPerform.run(iterations: (files.count + run - 1) / run) { task in
            var changed: [String] = []
            for file in files[(task * run)..<min(files.count, (task + 1) * run)] {
                if let stamp = file.stamp, file.recorded != nil, FileStamp.current(of: file.path) == stamp { continue }
                if !hashes(file.path, as: file.recorded, reader: reader) { changed.append(file.path) }
            }
            if !changed.isEmpty { found.withLock { $0 += changed } }
        }
        var changed = found.withLock { Set($0) }
        let present = Set(files.lazy.map(\.path))
        for path in cache.sources.keys where !present.contains(path) { changed.insert(path) }
        for path in cache.translations.keys where !present.contains(path) { changed.insert(path) }
        for diagnostic in diagnostics {
            guard let relative = SitePath.relative(diagnostic.file, in: displayRoot), case let kind = SitePath(relative),
                kind != .siteFile, kind != .vocabularyFile, case let path = "\(inventory.root)/\(relative)", !present.contains(path)
            else { continue }
            changed.insert(path)
        }
        return changed
    }

    private static func hashes(_ path: String, as recorded: Digest?, reader: SourceFileReader) -> Bool {
        guard let recorded, let bytes = try? reader.read(path) else { return false }
        return SHA256.digest(bytes) == recorded
    }
}
