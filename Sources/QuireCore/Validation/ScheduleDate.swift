public import Foundation

/// ISO 8601 times of `publish_at` and `expires_at`: `2025-12-01T09:00:00Z`, with an offset, with
/// fractional seconds, or a bare date (midnight UTC).
public enum ScheduleDate {
    public static func parse(_ text: String) -> Date? {
        for options: ISO8601DateFormatter.Options in [
            [.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds], [.withFullDate],
        ] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
