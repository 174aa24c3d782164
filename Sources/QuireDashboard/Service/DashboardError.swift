public import QuireModel

/// A request the service refuses or cannot carry out: its status, a message that says what to
/// do, and any members the dashboard reads besides (`conflict`, `disk_text`, ...).
public struct DashboardError: Error, Sendable {
    public var status: HTTPStatus
    public var message: String
    public var more: JSONObject

    public init(_ status: HTTPStatus, _ message: String, _ more: JSONObject = JSONObject()) {
        self.status = status
        self.message = message
        self.more = more
    }

    public var response: HTTPResponse { .error(status, message, more) }

    static func badRequest(_ message: String) -> DashboardError { DashboardError(.badRequest, message) }
    static func notFound(_ message: String) -> DashboardError { DashboardError(.notFound, message) }
}
