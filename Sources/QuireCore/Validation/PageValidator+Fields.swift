import Foundation
import QuireModel

/// A section's fields: each value checked against its spec, and the URLs they hold.
extension PageValidator {
    mutating func fields(_ node: SourceNode, specs: [FieldSpec], keyPath: String, translationBase: String) -> [FieldEntry] {
        var entries: [FieldEntry] = []
        entries.reserveCapacity(node.members?.count ?? 0)  // one allocation, not one per doubling
        for member in node.members ?? [] {
            guard let spec = specs.first(where: { $0.name == member.key }) else { continue }
            if let value = field(
                member.value, spec: spec, keyPath: "\(keyPath).\(member.key)",
                translationKey: "\(translationBase).\(member.key)", section: node)
            {
                entries.append(FieldEntry(name: member.key, value: value))
            }
        }
        for spec in specs where spec.required && node[spec.name] == nil {
            reader.error(
                node, keyPath.isEmpty ? spec.name : "\(keyPath).\(spec.name)",
                "missing required field '\(spec.name)' (\(spec.kind.name))")
        }
        return entries
    }

    /// `keyPath` and `translationKey` become strings only where the model keeps them (text) or a
    /// diagnostic names them.
    mutating func field(
        _ node: SourceNode, spec: FieldSpec, keyPath lazyKeyPath: @autoclosure () -> String,
        translationKey lazyTranslationKey: @autoclosure () -> String, section: SourceNode
    ) -> FieldValue? {
        switch spec.kind {
        case .text, .markdown:
            let keyPath = lazyKeyPath()
            let translationKey = lazyTranslationKey()
            guard let text = reader.string(node, keyPath) else { return nil }
            if spec.required && text.isBlank {
                reader.error(node, keyPath, "must not be empty")
            }
            let value = LocalizableText(
                key: translationKey, keyPath: keyPath, text: text, position: node.position, translatable: spec.translatable,
                isMarkdown: spec.kind == .markdown)
            return spec.kind == .markdown ? .markdown(value) : .text(value)
        case .url, .image:
            guard let url = reader.string(node, lazyKeyPath()) else { return nil }
            let isSafe = checkURL(url, node: node, keyPath: lazyKeyPath(), isImage: spec.kind == .image)
            if isSafe && spec.name == "destination" { checkDestination(url, node: node, keyPath: lazyKeyPath(), section: section) }
            return .plain(.string(url))
        case .idList:
            let keyPath = lazyKeyPath()
            guard let ids = reader.stringList(node, keyPath) else { return nil }
            if ids.isEmpty { reader.error(node, keyPath, "must list at least one id") }
            for (index, item) in (node.array ?? []).enumerated() {
                if let id = item.string, !Identifier.isValid(id) {
                    reader.error(item, "\(keyPath)[\(index)]", "'\(id)' is not a valid id: \(Identifier.rule)")
                }
            }
            if spec.name == "drill_ids", section["type"]?.string == "drill_carousel", let catalog = context.drillIDs {
                for (index, item) in (node.array ?? []).enumerated() {
                    guard let id = item.string, Identifier.isValid(id), !catalog.contains(id) else { continue }
                    reader.error(
                        item, "\(keyPath)[\(index)]",
                        "'\(id)' is not in the site's drill catalog (\(context.config.drillCatalog ?? "drill_catalog")): fix the id or add the drill to the catalog"
                    )
                }
            }
            return .plain(node.json)
        case .enumeration(let values):
            guard let value = reader.string(node, lazyKeyPath()) else { return nil }
            if !values.contains(value) {
                reader.error(node, lazyKeyPath(), "must be one of \(values.joined(separator: ", ")); found '\(value)'")
            }
            return .plain(.string(value))
        case .integer:
            return reader.integer(node, lazyKeyPath(), minimum: Int.min).map { .plain(.integer($0)) }
        case .boolean:
            return reader.bool(node, lazyKeyPath()).map { .plain(.bool($0)) }
        case .items(let itemSpecs):
            let keyPath = lazyKeyPath()
            let translationKey = lazyTranslationKey()
            guard let items = node.array else {
                reader.error(node, keyPath, "must be a list of items, found \(node.kindDescription)")
                return nil
            }
            if spec.required && items.isEmpty { reader.error(node, keyPath, "must have at least one item") }
            var seen: [String: SourcePosition] = [:]
            var result: [[FieldEntry]] = []
            result.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                let itemPath = "\(keyPath)[\(index)]"
                guard let members = item.members else {
                    reader.error(item, itemPath, "an item must be a mapping, found \(item.kindDescription)")
                    continue
                }
                reader.warnUnknownKeys(
                    members, isAllowed: { key in key == "id" || itemSpecs.contains { $0.name == key } },
                    allowed: { Set(itemSpecs.map(\.name) + ["id"]) }, keyPath: itemPath, where: "an item of '\(spec.name)'")
                var itemKey = "\(translationKey)[\(index)]"
                var entries: [FieldEntry] = []
                entries.reserveCapacity(members.count)
                if let idNode = item["id"], let id = reader.string(idNode, "\(itemPath).id") {
                    if !Identifier.isValid(id) {
                        reader.error(idNode, "\(itemPath).id", "'\(id)' is not a valid item id: \(Identifier.rule)")
                    } else if let first = seen[id] {
                        reader.error(idNode, "\(itemPath).id", "duplicate item id '\(id)' (first used at line \(first.line))")
                    } else {
                        seen[id] = idNode.position
                        itemKey = "\(translationKey).\(id)"
                    }
                    entries.append(FieldEntry(name: "id", value: .plain(.string(id))))
                }
                for member in members where member.key != "id" {
                    guard let fieldSpec = itemSpecs.first(where: { $0.name == member.key }) else { continue }
                    if let value = field(
                        member.value, spec: fieldSpec, keyPath: "\(itemPath).\(member.key)", translationKey: "\(itemKey).\(member.key)",
                        section: section)
                    {
                        entries.append(FieldEntry(name: member.key, value: value))
                    }
                }
                for fieldSpec in itemSpecs where fieldSpec.required && item[fieldSpec.name] == nil {
                    reader.error(
                        item, "\(itemPath).\(fieldSpec.name)", "missing required field '\(fieldSpec.name)' (\(fieldSpec.kind.name))")
                }
                result.append(entries)
            }
            return .items(result)
        }
    }

    /// False when the URL is refused outright (then no further checks are worth reporting).
    @discardableResult
    mutating func checkURL(_ url: String, node: SourceNode, keyPath lazyKeyPath: @autoclosure () -> String, isImage: Bool) -> Bool {
        var keyPath: String { lazyKeyPath() }
        if case .refused(let why) = URLPolicy.checkField(url) {
            reader.error(node, keyPath, why)
            return false
        }
        if url.hasPrefix("/assets/") {
            let asset = String(url.dropFirst("/assets/".count).prefix { $0 != "?" && $0 != "#" })
            if !context.assets.contains(asset) {
                reader.error(node, keyPath, "'\(url)' names no file: add it as pages/\(context.config.name)/assets/\(asset)")
            }
        } else if isImage, url.hasPrefix("/") {
            reader.error(node, keyPath, "'\(url)' is not an asset: images are served from /assets/... or an https: URL")
        }
        return true
    }

    /// `navigate` goes to a page of the site or a declared app route; `external` to a web URL.
    mutating func checkDestination(_ url: String, node: SourceNode, keyPath lazyKeyPath: @autoclosure () -> String, section: SourceNode) {
        var keyPath: String { lazyKeyPath() }
        guard let action = section["action"]?.string else { return }
        if action == "external" {
            if !(url.lowercased().hasPrefix("https:") || url.lowercased().hasPrefix("http:")) {
                reader.error(node, keyPath, "an external button needs an https: or http: URL, found '\(url)'")
            }
            return
        }
        guard action == "navigate" else { return }
        // Whether it names a page decides the check below: the page validates again when that page comes or goes.
        linkedPageIDs.insert(url.hasPrefix("/") ? String(url.dropFirst()) : url)
        guard url.hasPrefix("/") else {
            reader.error(
                node, keyPath,
                "a navigate button needs a page or app route starting with '/', found '\(url)'; use action: external for web links")
            return
        }
        let path = String(url.prefix { $0 != "?" && $0 != "#" })
        let target = String(path.dropFirst())
        if isPage(target) || context.config.appRoutes.contains(path) { return }
        let routes = context.config.appRoutes.sorted().joined(separator: ", ")
        reader.error(
            node, keyPath,
            "'\(url)' is neither a page of this site nor an app route\(routes.isEmpty ? " (site.yaml declares no app_routes)" : " (app_routes: \(routes))")"
        )
    }
}
