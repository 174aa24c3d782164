/// A version id: `v000001`, `v000002`, ... numbered per site in publish order.
public struct VersionID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var number: Int
    public init(_ number: Int) { self.number = number }
    public init?(_ text: String) {
        guard text.count == 7, text.hasPrefix("v"), let number = Int(text.dropFirst()), number > 0 else { return nil }
        self.number = number
    }
    public var description: String { "v" + String(repeating: "0", count: max(0, 6 - String(number).count)) + String(number) }
    public static func < (lhs: VersionID, rhs: VersionID) -> Bool { lhs.number < rhs.number }
}
