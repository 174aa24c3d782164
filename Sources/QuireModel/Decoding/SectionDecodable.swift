/// A section type an app knows how to decode (and render). Register it with `PageDecoder`;
/// the built-in types conform already, an app adds its own or replaces a built-in one.
public protocol SectionDecodable: Decodable, Sendable {
    /// The `type` value of the published section (`hero_banner`).
    static var sectionType: String { get }
}
