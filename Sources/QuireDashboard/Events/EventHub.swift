import Foundation

/// The open event streams (`GET /api/events`) and what each has yet to send. Each stream's
/// connection thread waits on its own subscriber; `publish` appends to every one and wakes it.
final class EventHub: @unchecked Sendable {
    final class Subscriber: @unchecked Sendable {
        private let condition = NSCondition()
        private var queued: [String] = []
        private var closed = false

        func push(_ event: String) {
            condition.withLock {
                queued.append(event)
                condition.signal()
            }
        }

        func close() {
            condition.withLock {
                closed = true
                condition.signal()
            }
        }

        /// The events queued, waiting up to `seconds` for one; nil once closed.
        func next(within seconds: Double) -> [String]? {
            condition.withLock {
                let deadline = Date(timeIntervalSinceNow: seconds)
                while queued.isEmpty && !closed && condition.wait(until: deadline) {}
                if closed { return nil }
                defer { queued.removeAll() }
                return queued
            }
        }
    }

    private let lock = NSLock()
    private var subscribers: [ObjectIdentifier: Subscriber] = [:]
    /// Streams beyond this are refused: each holds a thread.
    let maxSubscribers = 32
    /// How often an idle stream sends a comment, so proxies and browsers keep it open.
    var pingInterval: Double = 15

    func subscribe() -> Subscriber? {
        lock.withLock {
            guard subscribers.count < maxSubscribers else { return nil }
            let subscriber = Subscriber()
            subscribers[ObjectIdentifier(subscriber)] = subscriber
            return subscriber
        }
    }

    func unsubscribe(_ subscriber: Subscriber) {
        _ = lock.withLock { subscribers.removeValue(forKey: ObjectIdentifier(subscriber)) }
    }

    /// Sends `data` (one line of JSON) as an event named `name` to every stream.
    func publish(_ name: String, data: String) {
        let event = "event: \(name)\ndata: \(data)\n\n"
        for subscriber in lock.withLock({ Array(subscribers.values) }) { subscriber.push(event) }
    }

    /// Closes every stream (the service stopping).
    func closeAll() {
        for subscriber in lock.withLock({ Array(subscribers.values) }) { subscriber.close() }
    }

    /// The response of `GET /api/events`: a stream that writes each event as it comes, and a
    /// comment line when idle, until the client goes.
    func streamResponse() -> HTTPResponse {
        guard let subscriber = subscribe() else { return .error(.unavailable, "too many open event streams: close a dashboard tab") }
        var response = HTTPResponse(
            status: .ok, headers: [("Content-Type", "text/event-stream; charset=utf-8"), ("X-Accel-Buffering", "no")])
        let ping = pingInterval
        response.stream = { [self] connection in
            defer { unsubscribe(subscriber) }
            guard connection.write(": connected\n\n") else { return }
            while let events = subscriber.next(within: ping) {
                guard connection.write(events.isEmpty ? ": ping\n\n" : events.joined()) else { return }
            }
        }
        return response
    }
}
