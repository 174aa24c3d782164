extension ReplicaPush {
    /// `replicas:` of the site's site.yaml, where a rollback or unpin pushes (from the command
    /// line or the dashboard); none when it has none or cannot be read (its errors are the
    /// build's to report).
    public static func configured(site: String, pages: String) -> [ReplicaDestination] {
        SiteSettings.config(siteRoot: "\(pages)/\(site)", site: site, displayRoot: "\(pages)/\(site)")?.replicas ?? []
    }
}
