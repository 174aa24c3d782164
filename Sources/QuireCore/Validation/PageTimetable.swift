public import Foundation

/// When a page and its sections go live and expire: all its output key and the site's schedule
/// need of a page (`scheduleState`, `scheduledChanges`), small enough for a watcher to keep for
/// every page once their models are let go of (`CachedSource`).
public struct PageTimetable: Sendable, Hashable {
    /// A section with a schedule, named as a scheduled change names it: its id, or `#<index>`
    /// among the page's sections.
    public struct Section: Sendable, Hashable {
        public var name: String
        public var schedule: Schedule
    }

    public var pageID: String
    public var schedule: Schedule
    /// The sections with a schedule, in page order.
    public var sections: [Section]

    public init(_ model: PageModel) {
        pageID = model.pageID
        schedule = model.schedule
        sections = model.allSections.enumerated().compactMap { index, section in
            section.schedule.isEmpty ? nil : Section(name: section.id ?? "#\(index)", schedule: section.schedule)
        }
    }

    /// Every `publish_at` / `expires_at` of the page and its sections still ahead of `now`.
    public func scheduledChanges(after now: Date) -> [ScheduledChange] {
        var changes: [ScheduledChange] = []
        if let next = schedule.nextChange(after: now) {
            changes.append(ScheduledChange(pageID: pageID, section: nil, at: next.at, action: next.action))
        }
        for section in sections {
            if let next = section.schedule.nextChange(after: now) {
                changes.append(ScheduledChange(pageID: pageID, section: section.name, at: next.at, action: next.action))
            }
        }
        return changes
    }

    /// Which scheduled parts are live at `now`: part of every output's input digest, so a
    /// rebuild at a scheduled time changes what is published.
    public func scheduleState(at now: Date) -> String {
        var state = schedule.isEmpty ? "" : (schedule.isLive(at: now) ? "P" : "p")
        for section in sections { state += section.schedule.isLive(at: now) ? "1" : "0" }
        return state
    }
}
