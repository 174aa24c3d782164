import Foundation
import Glibc
import QuireModel

/// One line of `state/history.jsonl`: who moved `current` (or removed versions) when, and why.
public struct HistoryEntry: Sendable, Hashable {
    public enum Action: String, Sendable {
        case publish, rollback, pin, unpin, gc
    }

    public var when: String
    public var action: Action
    public var from: VersionID?
    public var to: VersionID?
    public var reason: String
    public var user: String

    var json: JSONValue {
        .object(JSONObject([
            ("when", .string(when)), ("action", .string(action.rawValue)),
            ("from", from.map { .string($0.description) } ?? .null), ("to", to.map { .string($0.description) } ?? .null),
            ("reason", .string(reason)), ("user", .string(user)),
        ]))
    }

    init(action: Action, from: VersionID?, to: VersionID?, reason: String) {
        self.when = Timestamp.now()
        self.action = action
        self.from = from
        self.to = to
        self.reason = reason
        self.user = Self.currentUser()
    }

    init?(json value: JSONValue) {
        guard let when = value["when"]?.stringValue, let action = value["action"]?.stringValue.flatMap(Action.init(rawValue:)) else {
            return nil
        }
        self.when = when
        self.action = action
        self.from = value["from"]?.stringValue.flatMap(VersionID.init)
        self.to = value["to"]?.stringValue.flatMap(VersionID.init)
        self.reason = value["reason"]?.stringValue ?? ""
        self.user = value["user"]?.stringValue ?? ""
    }

    /// `$USER`, else the password database's name for the uid.
    static func currentUser() -> String {
        if let user = ProcessInfo.processInfo.environment["USER"], !user.isEmpty { return user }
        if let entry = getpwuid(getuid()), let name = entry.pointee.pw_name { return String(cString: name) }
        return "uid \(getuid())"
    }
}

/// Appends to and reads `state/history.jsonl`.
struct History {
    let path: String

    func append(_ entry: HistoryEntry) throws(StoreError) {
        try FileSystem.appendLineAndSync(path, JSONWriter(pretty: false).bytes(entry.json) + [0x0A])
    }

    /// Every readable entry, oldest first; a torn last line (a crash mid-append) is skipped.
    func entries() throws(StoreError) -> [HistoryEntry] {
        guard FileSystem.exists(path) else { return [] }
        return try FileSystem.readFile(path).split(separator: 0x0A).compactMap { line in
            StoredJSONReader.parse(Array(line)).flatMap(HistoryEntry.init(json:))
        }
    }
}

enum Timestamp {
    /// ISO 8601 in UTC, to the second: `2025-03-01T12:00:00Z`.
    static func now() -> String {
        var seconds = time(nil)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
            Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }
}
