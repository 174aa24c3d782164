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
        .object(
            JSONObject([
                ("when", .string(when)), ("action", .string(action.rawValue)),
                ("from", from.map { .string($0.description) } ?? .null), ("to", to.map { .string($0.description) } ?? .null),
                ("reason", .string(reason)), ("user", .string(user)),
            ]))
    }

    /// `user`: who caused it, when known better than by this process's user (a dashboard
    /// editor whose save the publish carries).
    init(action: Action, from: VersionID?, to: VersionID?, reason: String, user: String? = nil) {
        self.when = Timestamp.now()
        self.action = action
        self.from = from
        self.to = to
        self.reason = reason
        self.user = user ?? Self.currentUser
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

    /// `$USER`, else the password database's name for the uid; looked up once per process.
    static let currentUser: String = {
        if let user = getenv("USER").map({ String(cString: $0) }), !user.isEmpty { return user }
        if let entry = getpwuid(getuid()), let name = entry.pointee.pw_name { return String(cString: name) }
        return "uid \(getuid())"
    }()
}

/// Appends to and reads `state/history.jsonl`.
struct History {
    let path: String

    /// `durable` false: the line is written, not synced; the caller syncs the file later.
    func append(_ entry: HistoryEntry, durable: Bool = true) throws(StoreError) {
        try FileSystem.appendLine(path, JSONWriter(pretty: false).bytes(entry.json) + [0x0A], sync: durable)
    }

    /// Every readable entry, oldest first; a torn last line (a crash mid-append) is skipped.
    func entries() throws(StoreError) -> [HistoryEntry] {
        guard FileSystem.exists(path) else { return [] }
        return Self.parse(try FileSystem.readFile(path)[...])
    }

    /// The newest `count` readable entries, oldest first, read from the end of the file: the
    /// status page shows them after every save, and the history grows by one line a publish.
    func lastEntries(_ count: Int) throws(StoreError) -> [HistoryEntry] {
        guard FileSystem.exists(path) else { return [] }
        return try fromTheEnd { entries, isWhole in entries.count >= count || isWhole ? Array(entries.suffix(count)) : nil }
    }

    /// The newest entry that `matches`; nil when none does.
    func lastEntry(where matches: (HistoryEntry) -> Bool) throws(StoreError) -> HistoryEntry? {
        guard FileSystem.exists(path) else { return nil }
        return try fromTheEnd { entries, isWhole -> HistoryEntry?? in
            if let found = entries.last(where: matches) { return .some(found) }
            return isWhole ? .some(nil) : nil
        }
    }

    /// Parses ever larger windows from the end of the file until `answer` gives an answer for
    /// the entries read (`isWhole`: the window is the whole file).
    private func fromTheEnd<Answer>(_ answer: ([HistoryEntry], _ isWhole: Bool) -> Answer?) throws(StoreError) -> Answer {
        var window = 16 * 1024
        while true {
            let (bytes, isWhole) = try FileSystem.readTail(path, count: window)
            // The first line of a window that starts mid-file may be cut.
            let lines = isWhole ? bytes[...] : bytes.drop { $0 != 0x0A }
            if let found = answer(Self.parse(lines), isWhole) { return found }
            window *= 4
        }
    }

    private static func parse(_ bytes: ArraySlice<UInt8>) -> [HistoryEntry] {
        bytes.split(separator: 0x0A).compactMap { line in StoredJSONReader.parse(Array(line)).flatMap(HistoryEntry.init(json:)) }
    }
}

enum Timestamp {
    /// ISO 8601 in UTC, to the second: `2025-03-01T12:00:00Z`.
    static func now() -> String { string(seconds: time(nil)) }

    /// `seconds` since 1970 as `now` writes a time, which is how `ISO8601DateFormatter` writes
    /// it. By hand: `String(format:)` costs more than the rest of a history entry, and the
    /// formatter's first use in a process loads ICU's calendar data.
    static func string(seconds: time_t) -> String {
        var seconds = seconds
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func digits(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return digits(parts.tm_year + 1900, 4) + "-" + digits(parts.tm_mon + 1, 2) + "-" + digits(parts.tm_mday, 2) + "T"
            + digits(parts.tm_hour, 2) + ":" + digits(parts.tm_min, 2) + ":" + digits(parts.tm_sec, 2) + "Z"
    }
}
